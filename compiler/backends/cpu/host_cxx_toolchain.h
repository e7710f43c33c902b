// The host C++ compiler: the CPU backend's toolchain (emitted TU -> shared object).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// The compiler named by $TILEJIT_HOST_CXX, else the first of c++, g++, clang++-22 in PATH.
absl::StatusOr<std::unique_ptr<Toolchain>> createHostCxxToolchain(const TargetDescription& target);

}  // namespace tilejit
