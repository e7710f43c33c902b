// What a kernel's code object says it uses (its amdhsa.kernels metadata) and the occupancy
// that allows on its target: the AMD part of `tilejit compile --emit resources`.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/targets/target_description.h"

namespace tilejit {

struct AmdKernelResources {
  int64_t sgprs = 0;
  int64_t vgprs = 0;  // .vgpr_count: on gfx90a/942/950 VGPRs and AGPRs of the unified file
  int64_t agprs = 0;
  int64_t ldsBytes = 0;      // .group_segment_fixed_size
  int64_t scratchBytes = 0;  // .private_segment_fixed_size, per lane
  int64_t sgprSpills = 0;
  int64_t vgprSpills = 0;
  int64_t wavefrontSize = 0;
};

// What limits the waves one SIMD holds, and the result.
struct AmdOccupancy {
  int64_t byRegisters = 0;
  int64_t byLds = 0;
  int64_t wavesPerSimd = 0;
};

AmdOccupancy amdOccupancy(const TargetDescription& target, const AmdKernelResources& kernel,
                          int64_t threadsPerProgram);

std::string formatAmdResources(const TargetDescription& target, const AmdKernelResources& kernel,
                               int64_t threadsPerProgram);

}  // namespace tilejit
