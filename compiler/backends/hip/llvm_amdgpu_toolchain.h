// The in-process LLVM 22 AMDGPU compiler (clang cc1 + lld) through libtilejit_amdgpu.so: every
// AMD target, on any Linux machine with the plugin beside the executable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// Where the plugin is looked for, in order: beside the running executable (/proc/self/exe) and
// in its ../lib, the same beside the library holding this code (the Python module), then the
// loader's search path.
std::vector<std::string> llvmAmdgpuCandidates();

absl::StatusOr<std::unique_ptr<Toolchain>> createLlvmAmdgpuToolchain(
    const TargetDescription& target,
    const std::vector<std::string>& candidates = llvmAmdgpuCandidates());

}  // namespace tilejit
