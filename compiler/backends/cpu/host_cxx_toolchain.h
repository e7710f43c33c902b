// The host C++ compiler: the CPU backend's toolchain (emitted TU -> shared object).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// The compiler named by $TILEJIT_HOST_CXX, else the first of `candidates` in PATH.
absl::StatusOr<std::unique_ptr<Toolchain>> createHostCxxToolchain(
    const TargetDescription& target,
    const std::vector<std::string>& candidates = {"c++", "g++", "clang++-22"});

}  // namespace tilejit
