// Arguments of one launch as the caller describes them. Fixed-size so that building and
// checking them never allocates (a launch must be capturable in a CUDA graph and cheap).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "support/dtype.h"

namespace tilejit {

inline constexpr int kMaxRank = 6;

struct TensorArg {
  void* data = nullptr;  // device pointer (host pointer on the CPU backend)
  DType dtype = DType::kF32;
  int rank = 0;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};  // in elements

  // Dense row-major tensor.
  static TensorArg contiguous(void* data, DType dtype, std::initializer_list<int64_t> shape);
};

struct ScalarArg {
  DType dtype = DType::kF32;
  double floatValue = 0;
  int64_t intValue = 0;
  static ScalarArg f32(float value) { return {DType::kF32, value, 0}; }
  static ScalarArg i64(int64_t value) { return {DType::kI64, 0, value}; }
};

struct KernelArg {
  enum class Kind { kTensor, kScalar } kind;
  TensorArg tensor;
  ScalarArg scalar;
  KernelArg(const TensorArg& t) : kind(Kind::kTensor), tensor(t) {}  // NOLINT: implicit by design
  KernelArg(const ScalarArg& s) : kind(Kind::kScalar), scalar(s) {}  // NOLINT
};

}  // namespace tilejit
