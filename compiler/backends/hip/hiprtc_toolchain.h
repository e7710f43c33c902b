// hiprtc (HIP's runtime compiler: libhiprtc on ROCm 6/7, inside libamdhip64 on ROCm 5): what a
// field machine with ROCm uses. Only handed targets comgr lists: hiprtc 5.2 aborts the process
// on an ISA it does not know (gfx940/942/1100).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/backends/hip/comgr_toolchain.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

const std::vector<std::string>& hiprtcCandidates();

// `comgr` is the library whose ISA list vouches for the target (the one hiprtc itself uses).
absl::StatusOr<std::unique_ptr<Toolchain>> createHiprtcToolchain(
    const TargetDescription& target,
    const std::vector<std::string>& candidates = hiprtcCandidates(),
    const std::vector<std::string>& comgr = comgrCandidates());

}  // namespace tilejit
