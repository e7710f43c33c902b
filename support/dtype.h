// Element types known to templates, metadata and the runtime. One table, one parser.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace tilejit {

enum class DType : uint8_t {
  kF16, kBF16, kF32, kF64, kI8, kI32, kI64, kU8, kBool,
  kF8E4M3FN, kF8E5M2,  // fp8 storage (OCP: e4m3 without infinities, e5m2 IEEE-like)
};

std::string_view dtypeName(DType dtype);  // "f16", "bf16", "f32", ...
int64_t dtypeSize(DType dtype);           // bytes per element
bool isFloat(DType dtype);
absl::StatusOr<DType> parseDType(std::string_view name);

}  // namespace tilejit
