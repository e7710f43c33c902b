// Element types known to templates, metadata and the runtime. One table, one parser.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace tilejit {

enum class DType : uint8_t { kF16, kBF16, kF32, kF64, kI8, kI32, kI64, kU8, kBool };

std::string_view dtypeName(DType dtype);  // "f16", "bf16", "f32", ...
int64_t dtypeSize(DType dtype);           // bytes per element
bool isFloat(DType dtype);
absl::StatusOr<DType> parseDType(std::string_view name);

}  // namespace tilejit
