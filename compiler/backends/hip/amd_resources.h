// The occupancy a kernel's resources (its code object's amdhsa.kernels metadata) allow on its
// target, and the AMD lines of `tilejit compile --emit resources`.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/targets/target_description.h"
#include "runtime/backends/hip/code_object.h"

namespace tilejit {

// What limits the waves one SIMD holds, and the result.
struct AmdOccupancy {
  int64_t byRegisters = 0;
  int64_t byLds = 0;
  int64_t wavesPerSimd = 0;
};

// .vgpr_count is, on gfx90a/942/950, the unified file's count (arch VGPRs and AGPRs).
AmdOccupancy amdOccupancy(const TargetDescription& target, const AmdKernelDescriptor& kernel,
                          int64_t threadsPerProgram);

std::string formatAmdResources(const TargetDescription& target, const AmdKernelDescriptor& kernel,
                               int64_t threadsPerProgram);

}  // namespace tilejit
