// A stand-in HIP device library for the toolchain tests: only what copy_scalar's emitted TU
// uses, so the AMD toolchains are tested apart from the real library. The copy goes through
// LDS so the resource report has LDS to show.
#pragma once

// hiprtc pre-includes its own HIP headers, which declare these already.
#ifndef __HIPCC_RTC__
typedef long int64_t;
typedef int int32_t;
#endif

#include "tj/abi.h"

#define TJ_DEVICE __attribute__((device)) inline

namespace tj {

template <int Axis>
TJ_DEVICE int64_t program_id() {
  return Axis == 0 ? __builtin_amdgcn_workgroup_id_x()
                   : Axis == 1 ? __builtin_amdgcn_workgroup_id_y() : __builtin_amdgcn_workgroup_id_z();
}

template <typename T, int R>
TJ_DEVICE int64_t offset_of(const View<T, R>& view, Index<R> index) {
  int64_t offset = 0;
  for (int d = 0; d < R; ++d) offset += index.v[d] * view.stride[d];
  return offset;
}

template <typename T, int R>
TJ_DEVICE T load_scalar(const View<T, R>& view, Index<R> index) {
  __attribute__((shared)) static T staged[TJ_THREADS];
  const int lane = __builtin_amdgcn_workitem_id_x();
  staged[lane] = view.data[offset_of(view, index)];
  __builtin_amdgcn_s_barrier();
  return staged[(lane + 1) % TJ_THREADS];
}

template <typename T, int R>
TJ_DEVICE void store_scalar(const View<T, R>& view, Index<R> index, T value) {
  if (__builtin_amdgcn_workitem_id_x() == 0) view.data[offset_of(view, index)] = value;
}

}  // namespace tj

#define TJ_KERNEL_ENTRY(name, Args)                                                   \
  __attribute__((device)) void name##_body(const Args& args);                        \
  extern "C" __attribute__((global)) void name(const Args args) { name##_body(args); } \
  __attribute__((device)) void name##_body(const Args& args)
