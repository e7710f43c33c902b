#include "compiler/backends/hip/amd_toolchains.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/hip/comgr_toolchain.h"
#include "compiler/backends/hip/hiprtc_toolchain.h"
#include "compiler/backends/hip/llvm_amdgpu_toolchain.h"

namespace tilejit {

const std::vector<std::string>& amdToolchainRoutes() {
  static const std::vector<std::string> routes = {"hiprtc", "comgr", "llvm"};
  return routes;
}

absl::StatusOr<std::unique_ptr<Toolchain>> createAmdToolchain(const TargetDescription& target,
                                                              const std::string& route) {
  const std::vector<std::string>& routes = amdToolchainRoutes();
  if (!route.empty() && std::find(routes.begin(), routes.end(), route) == routes.end())
    return absl::InvalidArgumentError(absl::StrCat("unknown AMD toolchain route '", route,
                                                   "'; known: ", absl::StrJoin(routes, ", ")));
  std::vector<std::string> tried;
  for (const std::string& name : routes) {
    if (!route.empty() && name != route) continue;
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain =
        name == "hiprtc"  ? createHiprtcToolchain(target)
        : name == "comgr" ? createComgrToolchain(target)
                          : createLlvmAmdgpuToolchain(target);
    if (toolchain.ok()) return toolchain;
    tried.push_back(absl::StrCat(name, ": ", toolchain.status().message()));
  }
  return absl::UnavailableError(absl::StrCat("no AMD toolchain serves ", target.name,
                                             "; tried ", absl::StrJoin(tried, "; ")));
}

}  // namespace tilejit
