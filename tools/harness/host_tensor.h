// Host-side tensors for references and checks, and device buffers that mirror them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/arguments.h"
#include "runtime/device.h"
#include "support/dtype.h"

namespace tilejit {

struct HostTensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  HostTensor(DType dtype, std::vector<int64_t> shape);
  int64_t numel() const;
  double get(int64_t i) const;  // as a number, whatever the dtype
  void set(int64_t i, double value);
  void fillNormal(std::mt19937_64& rng, double stddev = 1.0);
  void fillNaN();
};

// A device allocation holding a copy of a host tensor; freed on destruction.
class DeviceTensor {
 public:
  static absl::StatusOr<DeviceTensor> upload(Device& device, const HostTensor& host);
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor& operator=(DeviceTensor&&) = delete;
  ~DeviceTensor();
  absl::Status download(HostTensor& host) const;
  absl::Status overwrite(const HostTensor& host);
  TensorArg arg() const;
  void* data() const { return data_; }

 private:
  DeviceTensor(Device& device, void* data, DType dtype, std::vector<int64_t> shape, size_t bytes)
      : device_(&device), data_(data), dtype_(dtype), shape_(std::move(shape)), bytes_(bytes) {}
  Device* device_;
  void* data_;
  DType dtype_;
  std::vector<int64_t> shape_;
  size_t bytes_;
};

// Element index of (block, slot, head, d) in a paged K or V cache, the layout told apart by the
// shape's rank: standard [blocks, block_size, heads, head_size] (rank 4), shuffled K
// [blocks, heads, head_size/X, block_size, X] or shuffled V [blocks, heads, block_size/X,
// head_size, X] (rank 5; CONTEXT.md section 5).
int64_t pagedCacheIndex(const std::vector<int64_t>& shape, bool isKey, int64_t block,
                        int64_t slot, int64_t head, int64_t d);

// Fills a block table [seqs, max_blocks_per_seq] from `blockOrder` (a shuffled list of block
// ids whose last three are left unused, holding only NaN): each sequence takes the next
// cdiv(length, blockSize) ids in turn, and its entries past that point at the unused ones, so
// a kernel that reads past a sequence's end reads NaN.
void fillPagedBlockTable(HostTensor& table, const std::vector<int64_t>& seqLens, int64_t blockSize,
                         const std::vector<int64_t>& blockOrder);

// Relative L-inf error of `out` against `ref` over the elements `selected` marks (all when
// empty); NaN anywhere selected makes it +inf.
struct ErrorReport {
  double relativeLinf = 0;
  // Mean of (out - ref) / ref: ~0 for rounding, the size of a systematic scale error (a kernel
  // that weighs its inputs 0.5 % too much reads +5e-3 while passing an L-inf bound).
  double meanRelativeBias = 0;
  int64_t nanCount = 0;
  int64_t compared = 0;
};
ErrorReport compare(const HostTensor& out, const std::vector<double>& ref,
                    const std::vector<bool>& selected = {});

}  // namespace tilejit
