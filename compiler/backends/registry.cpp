#include "compiler/backends/registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {

// Each backend folder defines `const CompilerBackend& <folder>Backend()`.
#define TILEJIT_BACKEND(folder) const CompilerBackend& folder##Backend();
#include "compiler/backends/registered_backends.inc"
#undef TILEJIT_BACKEND

const std::vector<const CompilerBackend*>& allBackends() {
  static const std::vector<const CompilerBackend*> backends = [] {
#define TILEJIT_BACKEND(folder) &folder##Backend(),
    std::vector<const CompilerBackend*> list = {
#include "compiler/backends/registered_backends.inc"
    };
#undef TILEJIT_BACKEND
    std::stable_sort(list.begin(), list.end(), [](const CompilerBackend* a, const CompilerBackend* b) {
      return a->listingRank() < b->listingRank();
    });
    return list;
  }();
  return backends;
}

absl::StatusOr<const CompilerBackend*> lookupBackend(std::string_view name) {
  std::vector<std::string> names;
  for (const CompilerBackend* backend : allBackends()) {
    if (backend->name() == name) return backend;
    names.emplace_back(backend->name());
  }
  return absl::NotFoundError(absl::StrCat("no compiler backend '", std::string(name),
                                          "' in this build; registered backends: ",
                                          absl::StrJoin(names, ", ")));
}

std::vector<TargetDescription> registeredTargets() {
  std::vector<TargetDescription> targets;
  for (const CompilerBackend* backend : allBackends())
    for (TargetDescription& target : backend->targets()) targets.push_back(std::move(target));
  return targets;
}

void registerBackendPasses() {
  for (const CompilerBackend* backend : allBackends()) backend->registerPasses();
}

absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(const TargetDescription& target,
                                                           const std::string& stateDirectory) {
  TJ_ASSIGN_OR_RETURN(const CompilerBackend* backend, lookupBackend(target.backend));
  return backend->createToolchain(target, stateDirectory);
}

}  // namespace tilejit
