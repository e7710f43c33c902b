// Prefill's and extend's HIP translation units on the CPU wave model (every lane a fiber, the
// wave operations lane-exact) for a wave64 (gfx942) and a wave32 (gfx1100) target, against the
// float64 reference: Q/K/V tiles in LDS feeding MFMA / WMMA (extend's gathered through a
// shuffled block table, NaN past each end, either cache layout), the online softmax on their
// accumulator fragments, masked tile edges, GQA, bottom-right causal rows, the target's own
// tuning rows. Small problems keep the modelled programs few. Not run on AMD silicon.
#include <gtest/gtest.h>

#include "../prefill_cases.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"
#include "tests/unit/compiler/wave_model_fixture.h"

namespace tilejit {
namespace {

class AttentionOnWaveModel : public testing::WaveModelOpTest {};

TEST_P(AttentionOnWaveModel, PrefillCausalGqaMatchesReference) {
  auto check = testing::checkPrefillCase(
      *jit_, *device_, {"block_m=32", "block_n=32", "num_warps=4", "gqa_ratio=2"},
      testing::prefillProblem(4, {1, 33, 31}, {40, 33, 0}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(AttentionOnWaveModel, PrefillTunedNonCausalWithSoftCapAndAlibi) {
  auto check = testing::checkPrefillCase(
      *jit_, *device_, {"causal=0", "soft_cap=1", "alibi=1", "head_size=64", "v_head_size=64"},
      testing::prefillProblem(2, {65, 17}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(AttentionOnWaveModel, PrefillMlaHeadsWithAWindow) {
  auto check = testing::checkPrefillCase(
      *jit_, *device_, {"head_size=192", "v_head_size=128", "block_m=16", "block_n=16"},
      testing::prefillProblem(1, {40}, {50}, 21));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(AttentionOnWaveModel, ExtendVerifyAndChunkMatchTheReference) {
  auto check = testing::checkExtendCase(
      *jit_, *device_, {"block_m=32", "block_n=32", "num_warps=4", "gqa_ratio=2"},
      testing::extendProblem(4, {3, 33}, {40, 17}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(AttentionOnWaveModel, ExtendTunedShuffledCache) {
  auto check = testing::checkExtendCase(*jit_, *device_,
                                        {"kv_layout=shuffled", "head_size=64", "v_head_size=64"},
                                        testing::extendProblem(2, {17, 1}, {50, 31}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, AttentionOnWaveModel, ::testing::Values("gfx942", "gfx1100"));

}  // namespace
}  // namespace tilejit
