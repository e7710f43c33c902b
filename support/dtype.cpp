#include "support/dtype.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {
namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int64_t size;
  bool isFloat;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::kF16, "f16", 2, true},  {DType::kBF16, "bf16", 2, true},
    {DType::kF32, "f32", 4, true},  {DType::kF64, "f64", 8, true},
    {DType::kI8, "i8", 1, false},   {DType::kI32, "i32", 4, false},
    {DType::kI64, "i64", 8, false}, {DType::kU8, "u8", 1, false},
    {DType::kBool, "i1", 1, false},
    {DType::kF8E4M3FN, "f8e4m3fn", 1, true}, {DType::kF8E5M2, "f8e5m2", 1, true},
};
const DTypeInfo& info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }
}  // namespace

std::string_view dtypeName(DType dtype) { return info(dtype).name; }
int64_t dtypeSize(DType dtype) { return info(dtype).size; }
bool isFloat(DType dtype) { return info(dtype).isFloat; }

absl::StatusOr<DType> parseDType(std::string_view name) {
  for (const DTypeInfo& entry : kDTypes)
    if (entry.name == name) return entry.dtype;
  // Debian's Abseil has its own string_view, so StrCat takes std::string here.
  std::vector<std::string> names;
  for (const DTypeInfo& entry : kDTypes) names.emplace_back(entry.name);
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", std::string(name), "'; known dtypes: ",
                                                 absl::StrJoin(names, ", ")));
}

}  // namespace tilejit
