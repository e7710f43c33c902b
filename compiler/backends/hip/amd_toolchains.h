// The AMD routes and the choice among them for one target.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// The routes in the order they are tried:
// - comgr: the machine's own ROCm compiler (hiprtc is built on it, so its code objects are what
//   hiprtc's would be), without the HIP headers hiprtc pre-includes, which clash with the
//   self-contained device library (hiprtc 5.2: int64_t as long long);
// - hiprtc: the same ROCm compiler where this build has no action table for the comgr present
//   (it still vouches for the target through its ISA list);
// - llvm: the in-process LLVM 22 compiler, every target, on any Linux machine.
// The vendor routes are chosen only from ROCm 6 on (comgr >= 2.6): ROCm 5's clang 15 has no
// __bf16 arithmetic on AMDGPU, and its HIP runtime loads code object v4 only (these are v5).
const std::vector<std::string>& amdToolchainRoutes();

// The first route of amdToolchainRoutes() that serves `target`, or only `route` when not empty
// (then a ROCm 5 vendor library is used too); when none does, the error lists every route
// tried and why it failed.
absl::StatusOr<std::unique_ptr<Toolchain>> createAmdToolchain(const TargetDescription& target,
                                                              const std::string& route = "");

}  // namespace tilejit
