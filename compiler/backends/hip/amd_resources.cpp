#include "compiler/backends/hip/amd_resources.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace tilejit {
namespace {

int64_t roundUp(int64_t value, int64_t granule) {
  return (value + granule - 1) / granule * granule;
}

// Register files (CDNA3 ISA 3.6.4, RDNA3 ISA 3.3.1; LLVM AMDGPUBaseInfo's getTotalNumVGPRs and
// getVGPRAllocGranule): gfx9 (wave64) SIMDs hold 512 VGPRs per lane, VGPRs and AGPRs from one
// file, allocated in granules of 8, at most 8 waves; gfx11/gfx12 (wave32) SIMDs 1536 per lane,
// granules of 24, at most 16 waves. gfx9 also caps waves by 800 SGPRs per SIMD (granules of 16);
// gfx10+ gives every wave its SGPRs. A CU has 4 SIMDs on gfx9, 2 on gfx11/12 (the target's
// registersPerMultiprocessor = SIMDs x VGPRs per lane x wave size).
struct RegisterFile {
  int64_t simdsPerCu;
  int64_t vgprGranule;
  int64_t maxWavesPerSimd;
  int64_t sgprsPerSimd;  // 0: not a limit
};

RegisterFile registerFileOf(const TargetDescription& target) {
  if (target.warpSize == 64) return {4, 8, 8, 800};
  return {2, 24, 16, 0};
}

}  // namespace

// waves/SIMD = min(max waves, VGPRs per lane / round_up(.vgpr_count, granule), [gfx9] 800 / round_up(SGPRs, 16), LDS: (LDS per CU / LDS per workgroup) workgroups
// x waves per workgroup / SIMDs per CU). LDS per CU is the target's sharedBytesPerProgram
// (64 KB; 160 KB on gfx950; gfx11/12 in CU mode).
AmdOccupancy amdOccupancy(const TargetDescription& target, const AmdKernelDescriptor& kernel,
                          int64_t threadsPerProgram) {
  const RegisterFile file = registerFileOf(target);
  const int64_t wave = kernel.wavefrontSize > 0 ? kernel.wavefrontSize : target.warpSize;
  const int64_t vgprsPerLane = target.registersPerMultiprocessor / (file.simdsPerCu * wave);
  // On gfx90a/942/950 .vgpr_count is already the unified total (arch VGPRs aligned to 4, then
  // the AGPRs): 61 VGPRs + 41 AGPRs report 105, and LLVM's occupancy remark agrees (4 waves).
  const int64_t allocated = roundUp(std::max<int64_t>(1, kernel.vgprCount), file.vgprGranule);
  AmdOccupancy occupancy;
  occupancy.byRegisters = std::min(file.maxWavesPerSimd, vgprsPerLane / allocated);
  if (file.sgprsPerSimd > 0 && kernel.sgprCount > 0)
    occupancy.byRegisters =
        std::min(occupancy.byRegisters, file.sgprsPerSimd / roundUp(kernel.sgprCount, 16));
  occupancy.byLds = file.maxWavesPerSimd;
  if (kernel.groupSegmentFixedSize > 0) {
    const int64_t wavesPerProgram = (std::max<int64_t>(1, threadsPerProgram) + wave - 1) / wave;
    const int64_t programsPerCu = target.sharedBytesPerProgram / kernel.groupSegmentFixedSize;
    // A program that fits puts at least one wave on the SIMDs it uses; one that does not, none.
    occupancy.byLds =
        programsPerCu == 0 ? 0
                           : std::clamp<int64_t>(programsPerCu * wavesPerProgram / file.simdsPerCu,
                                                 1, file.maxWavesPerSimd);
  }
  occupancy.wavesPerSimd = std::min(occupancy.byRegisters, occupancy.byLds);
  return occupancy;
}

std::string formatAmdResources(const TargetDescription& target, const AmdKernelDescriptor& kernel,
                               int64_t threadsPerProgram) {
  const AmdOccupancy occupancy = amdOccupancy(target, kernel, threadsPerProgram);
  return absl::StrFormat(
      "  amdgpu: sgpr %d, vgpr %d, agpr %d; lds %d bytes; scratch %d bytes per lane; "
      "spills: sgpr %d, vgpr %d; wave size %d\n"
      "  occupancy estimate: %d waves per SIMD (registers allow %d, lds %d)\n",
      kernel.sgprCount, kernel.vgprCount, kernel.agprCount, kernel.groupSegmentFixedSize, kernel.privateSegmentFixedSize,
      kernel.sgprSpillCount, kernel.vgprSpillCount, kernel.wavefrontSize, occupancy.wavesPerSimd,
      occupancy.byRegisters, occupancy.byLds);
}

}  // namespace tilejit
