#include "compiler/backends/hip/amd_compile.h"

#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {
namespace {

template <typename T>
std::optional<T> readAt(const std::string& bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

absl::StatusOr<DynamicLibrary> openVendorLibrary(const std::string& what,
                                                 const std::vector<std::string>& candidates) {
  absl::StatusOr<DynamicLibrary> library = DynamicLibrary::open(candidates);
  if (library.ok()) return library;
  return absl::UnavailableError(absl::StrCat(what, " not found: tried ",
                                             absl::StrJoin(candidates, ", "), ": ",
                                             library.status().message()));
}

std::vector<std::string> amdCompileOptions() {
  return {"-O3", absl::StrCat("-mcode-object-version=", kAmdCodeObjectVersion)};
}

absl::Status checkAmdCodeObject(const std::string& binary, const std::string& entry) {
  constexpr uint16_t kMachineAmdgpu = 224;  // EM_AMDGPU
  if (binary.size() < 64 || binary.compare(0, 4, "\x7f" "ELF") != 0 || binary[4] != 2)
    return absl::InternalError(
        absl::StrCat("the code object is not a 64-bit ELF (", binary.size(), " bytes)"));
  if (auto machine = readAt<uint16_t>(binary, 18); !machine || *machine != kMachineAmdgpu)
    return absl::InternalError(absl::StrCat("the code object's ELF machine is ",
                                            machine.value_or(0), ", not EM_AMDGPU (224)"));
  auto sectionHeaders = readAt<uint64_t>(binary, 0x28);
  auto headerSize = readAt<uint16_t>(binary, 0x3A);
  auto sectionCount = readAt<uint16_t>(binary, 0x3C);
  if (!sectionHeaders || !headerSize || !sectionCount || *headerSize < 64)
    return absl::InternalError("the code object's section headers are unreadable");
  for (uint16_t i = 0; i < *sectionCount; ++i) {
    uint64_t at = *sectionHeaders + uint64_t(i) * *headerSize;
    auto type = readAt<uint32_t>(binary, at + 4);
    auto offset = readAt<uint64_t>(binary, at + 24);
    auto size = readAt<uint64_t>(binary, at + 32);
    auto link = readAt<uint32_t>(binary, at + 40);
    constexpr uint32_t kSymbolTable = 2, kDynamicSymbols = 11;
    if (!type || !offset || !size || !link || (*type != kSymbolTable && *type != kDynamicSymbols))
      continue;
    uint64_t namesAt = *sectionHeaders + uint64_t(*link) * *headerSize;
    auto namesOffset = readAt<uint64_t>(binary, namesAt + 24);
    auto namesSize = readAt<uint64_t>(binary, namesAt + 32);
    if (*link >= *sectionCount || !namesOffset || !namesSize ||
        *namesOffset + *namesSize > binary.size() || *offset + *size > binary.size())
      continue;
    for (uint64_t symbol = *offset; symbol + 24 <= *offset + *size; symbol += 24) {
      uint32_t name = *readAt<uint32_t>(binary, symbol);
      if (name >= *namesSize) continue;
      const char* text = binary.data() + *namesOffset + name;
      if (std::string(text, strnlen(text, *namesSize - name)) == entry) return absl::OkStatus();
    }
  }
  return absl::NotFoundError(
      absl::StrCat("the code object exports no symbol named ", entry));
}

}  // namespace tilejit
