// The registered compiler backends: every folder under compiler/backends/ with a
// CMakeLists.txt (the build generates the list, so static linking keeps them all).
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/backends/backend.h"

namespace tilejit {

// The backend a target description names in `backend`; the error lists the registered names.
absl::StatusOr<const CompilerBackend*> lookupBackend(std::string_view name);

// Every registered backend, by listing rank.
const std::vector<const CompilerBackend*>& allBackends();

// Every backend's targets (hardware facts only), backends in listing order: what
// allTargets() adds the tuning tables to.
std::vector<TargetDescription> registeredTargets();

// Makes every backend's target passes known to tj-opt.
void registerBackendPasses();

}  // namespace tilejit
