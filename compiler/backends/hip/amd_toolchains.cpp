#include "compiler/backends/hip/amd_toolchains.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"
#include "compiler/backends/hip/comgr_toolchain.h"
#include "compiler/backends/hip/hiprtc_toolchain.h"
#include "compiler/backends/hip/llvm_amdgpu_toolchain.h"

namespace tilejit {

const std::vector<std::string>& amdToolchainRoutes() {
  static const std::vector<std::string> routes = {"comgr", "hiprtc", "llvm"};
  return routes;
}

namespace {

// OK when the comgr present is ROCm 6's or later (API 2.6 on); the automatic choice passes
// over an older one.
absl::Status checkRocm6OrLater() {
  TJ_ASSIGN_OR_RETURN(auto version, comgrVersion());
  const auto [major, minor] = version;
  if (major > 2 || (major == 2 && minor >= 6)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "comgr ", major, ".", minor,
      " is ROCm 5's (clang 15: no __bf16 on AMDGPU; its HIP runtime loads code object v4 "
      "only), not chosen unless TILEJIT_AMD_TOOLCHAIN names it"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Toolchain>> createAmdToolchain(const TargetDescription& target,
                                                              const std::string& route) {
  const std::vector<std::string>& routes = amdToolchainRoutes();
  if (!route.empty() && std::find(routes.begin(), routes.end(), route) == routes.end())
    return absl::InvalidArgumentError(absl::StrCat("unknown AMD toolchain route '", route,
                                                   "'; known: ", absl::StrJoin(routes, ", ")));
  std::vector<std::string> tried;
  for (const std::string& name : routes) {
    if (!route.empty() && name != route) continue;
    const bool vendor = name != "llvm";
    if (absl::Status rocm = route.empty() && vendor ? checkRocm6OrLater() : absl::OkStatus();
        !rocm.ok()) {
      tried.push_back(absl::StrCat(name, ": ", rocm.message()));
      continue;
    }
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
