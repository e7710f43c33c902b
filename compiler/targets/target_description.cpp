#include "compiler/targets/target_description.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/registry.h"

namespace tilejit {

// The targets are the backends' (each lists its own hardware facts); their tuning is data
// (compiler/tuning, one file per target).
const std::vector<TargetDescription>& allTargets() {
  static const std::vector<TargetDescription> targets = registeredTargets();
  return targets;
}

absl::StatusOr<const TargetDescription*> lookupTarget(std::string_view name) {
  std::vector<std::string> names;
  for (const TargetDescription& target : allTargets()) {
    if (target.name == name) return &target;
    names.push_back(target.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown target '", std::string(name),
                                                 "'; known targets: ", absl::StrJoin(names, ", ")));
}

}  // namespace tilejit
