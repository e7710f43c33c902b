#include "compiler/backends/hip/amd_compile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {

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

absl::StatusOr<AmdKernelDescriptor> amdKernelOf(const std::string& binary,
                                                const std::string& entry) {
  TJ_ASSIGN_OR_RETURN(AmdCodeObject object, readAmdCodeObject(binary));
  std::vector<std::string> names;
  for (AmdKernelDescriptor& kernel : object.kernels) {
    if (kernel.name == entry) return std::move(kernel);
    names.push_back(kernel.name);
  }
  return absl::NotFoundError(absl::StrCat("the code object for ", object.target,
                                          " holds no kernel named ", entry, "; it holds ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

absl::Status takeAmdResources(CompileResult& result, const std::string& entry) {
  TJ_ASSIGN_OR_RETURN(AmdKernelDescriptor kernel, amdKernelOf(result.binary, entry));
  ResourceUsage& usage = result.resources;
  usage.registers = kernel.vgprCount;
  // A spilled VGPR is stored to and loaded from scratch, 4 bytes per lane.
  usage.spillStores = usage.spillLoads = kernel.vgprSpillCount * 4;
  usage.staticSharedBytes = kernel.groupSegmentFixedSize;
  usage.localBytes = kernel.privateSegmentFixedSize;
  return absl::OkStatus();
}

}  // namespace tilejit
