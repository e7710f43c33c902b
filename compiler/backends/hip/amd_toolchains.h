// The AMD routes and the choice among them for one target.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// The routes in the order they are tried: hiprtc (the ROCm a field machine runs, so its code
// objects match that machine's loader), comgr (the same compiler without the HIP headers, where
// its ISA list has the target), the in-process LLVM AMDGPU compiler (every target, any Linux).
const std::vector<std::string>& amdToolchainRoutes();

// The first route of amdToolchainRoutes() (or only `route`, when not empty) that serves
// `target`; when none does, the error lists every route tried and why it failed.
absl::StatusOr<std::unique_ptr<Toolchain>> createAmdToolchain(const TargetDescription& target,
                                                              const std::string& route = "");

}  // namespace tilejit
