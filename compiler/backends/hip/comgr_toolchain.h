// comgr (AMD's code object manager, libamd_comgr): HIP source -> bitcode -> relocatable ->
// code object, in-process, for the ISAs the loaded comgr lists.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// The sonames tried, newest first: comgr 3.x (ROCm 7), then 2.x (ROCm 5 and 6).
const std::vector<std::string>& comgrCandidates();

// The ISA names ("amdgcn-amd-amdhsa--gfx90a") the first of `candidates` that loads lists.
absl::StatusOr<std::vector<std::string>> comgrIsaNames(
    const std::vector<std::string>& candidates = comgrCandidates());

// comgr's API version (2.4 in ROCm 5.2, 2.6 in ROCm 6.0, 3.x in ROCm 7).
absl::StatusOr<std::pair<size_t, size_t>> comgrVersion(
    const std::vector<std::string>& candidates = comgrCandidates());

// OK when comgr lists `target` (a gfx name); else why not (comgr missing, or its list, which
// the message summarises). Every AMD route but the in-process LLVM asks this first.
absl::Status checkComgrKnowsTarget(const std::string& target,
                                   const std::vector<std::string>& candidates = comgrCandidates());

absl::StatusOr<std::unique_ptr<Toolchain>> createComgrToolchain(
    const TargetDescription& target,
    const std::vector<std::string>& candidates = comgrCandidates());

}  // namespace tilejit
