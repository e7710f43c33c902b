// The kernel ABI every backend's device library shares: how the emitted kernel's argument
// struct holds a view of global memory and an index into one (templates/device/README.md,
// "Kernel ABI"). Included by each backend's tj/types.h once it has the fixed-width integers
// (nvrtc has no standard headers, so this file includes none).
#pragma once

namespace tj {

// A strided view of global memory: element (i0, ..) sits at data[i0 * stride[0] + ..].
template <typename T, int R>
struct View {
  T* data;
  int64_t shape[R];
  int64_t stride[R];
};

template <int R>
struct Index {
  int64_t v[R];
};

// How a paged cache argument is laid out (its memory order is a specialization parameter):
// standard [blocks, block_size, heads, head], or shuffled K / V (templates/device/README.md).
enum class CacheLayout { Standard, ShuffledK, ShuffledV };

}  // namespace tj
