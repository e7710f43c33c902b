// The occupancy estimate of `--emit resources` against LLVM 22's own
// (-Rpass-analysis=kernel-resource-usage "Occupancy [waves/SIMD]") for the same VGPR counts.
#include <gtest/gtest.h>

#include "compiler/backends/hip/amd_resources.h"

namespace tilejit {
namespace {

int64_t waves(const char* name, int64_t vgprs, int64_t lds = 0, int64_t threads = 256) {
  absl::StatusOr<const TargetDescription*> target = lookupTarget(name);
  EXPECT_TRUE(target.ok());
  AmdKernelDescriptor kernel;
  kernel.vgprCount = vgprs;
  kernel.sgprCount = 16;
  kernel.groupSegmentFixedSize = lds;
  kernel.wavefrontSize = (*target)->warpSize;
  return amdOccupancy(**target, kernel, threads).wavesPerSimd;
}

TEST(AmdOccupancy, MatchesLlvmsRemarkOnRegisters) {
  for (const char* gfx9 : {"gfx90a", "gfx942", "gfx950"}) {
    EXPECT_EQ(waves(gfx9, 41), 8) << gfx9;
    EXPECT_EQ(waves(gfx9, 97), 4) << gfx9;  // 104 allocated: granules of 8, not 4
    EXPECT_EQ(waves(gfx9, 101), 4) << gfx9;
    EXPECT_EQ(waves(gfx9, 105), 4) << gfx9;  // 61 VGPRs + 41 AGPRs on gfx90a
    EXPECT_EQ(waves(gfx9, 201), 2) << gfx9;
  }
  for (const char* rdna : {"gfx1100", "gfx1201"}) {
    EXPECT_EQ(waves(rdna, 41), 16) << rdna;
    EXPECT_EQ(waves(rdna, 101), 12) << rdna;
    EXPECT_EQ(waves(rdna, 110), 12) << rdna;  // 120 allocated: granules of 24, not 16
    EXPECT_EQ(waves(rdna, 201), 7) << rdna;
  }
}

TEST(AmdOccupancy, LdsLimitsWorkgroupsPerCu) {
  // 32 KB per 256-thread program: 2 programs of 4 waves on a 64 KB CU of 4 SIMDs.
  EXPECT_EQ(waves("gfx942", 41, 32 * 1024), 2);
  // gfx950's 160 KB hold 5.
  EXPECT_EQ(waves("gfx950", 41, 32 * 1024), 5);
  // wave32, 2 SIMDs: 8 waves per program, 2 programs -> 8 waves per SIMD.
  EXPECT_EQ(waves("gfx1100", 41, 32 * 1024), 8);
  // One 64-thread program of 48 KB: one wave on one SIMD; 96 KB fits no gfx942 CU.
  EXPECT_EQ(waves("gfx942", 41, 48 * 1024, 64), 1);
  EXPECT_EQ(waves("gfx942", 41, 96 * 1024, 64), 0);
}

}  // namespace
}  // namespace tilejit
