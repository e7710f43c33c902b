// nvrtc: the CUDA backend's toolchain (emitted TU -> CUBIN for the exact sm_XX).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

// `stateDirectory` (the disk cache's root; may be empty) keeps nvrtc's version between processes.
absl::StatusOr<std::unique_ptr<Toolchain>> createNvrtcToolchain(const TargetDescription& target,
                                                                const std::string& stateDirectory);

// Resource usage of `entry` from nvrtc's log (ptxas -v lines), and from a CUBIN's .nv.info
// section (registers and stack frame; false when the ELF is not understood). Exposed for tests.
ResourceUsage parsePtxasLog(const std::string& log, const std::string& entry);
bool readCubinResources(const std::string& cubin, const std::string& entry, ResourceUsage& usage);

}  // namespace tilejit
