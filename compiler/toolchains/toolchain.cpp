#include "compiler/toolchains/toolchain.h"

#include "absl/strings/str_cat.h"
#include "compiler/toolchains/toolchains_internal.h"

namespace tilejit {

absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(const TargetDescription& target,
                                                           const std::string& stateDirectory) {
  if (target.backend == "cuda") return createNvrtcToolchain(target, stateDirectory);
  if (target.backend == "cpu") return createHostCxxToolchain(target);
  if (target.backend == "hip")
    return absl::UnimplementedError(
        absl::StrCat("AMD toolchain not built yet (issue: AMD backend); "
                     "target ",
                     target.name, " cannot be compiled"));
  return absl::InvalidArgumentError(absl::StrCat("target ", target.name, " has backend '",
                                                 target.backend,
                                                 "'; toolchains exist for 'cuda' and 'cpu'"));
}

}  // namespace tilejit
