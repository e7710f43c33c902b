// MLA decode's HIP translation units on the CPU wave model (every lane a fiber, the wave
// operations lane-exact) for a wave64 (gfx942) and a wave32 (gfx1100) target, against the
// float64 reference: the GPU lowering (latent tiles in shared memory feeding both dots, the
// matrix instructions' fragments, the masked rows of a partial head block, q_len 2, the
// merge). Small problems keep the modelled programs few. Not run on AMD silicon.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "../mla_cases.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"
#include "tests/unit/compiler/wave_model_fixture.h"

namespace tilejit {
namespace {

class MlaOnWaveModel : public testing::WaveModelOpTest {};

TEST_P(MlaOnWaveModel, MatchesReference) {
  auto check = testing::checkMlaCase(
      *jit_, *device_, {"block_size=16", "partition_size=64", "block_n=32", "q_rows=16"},
      testing::mlaProblem(20, {1, 40, 70}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(MlaOnWaveModel, TwoQueryTokensMatchTheReference) {
  auto check = testing::checkMlaCase(
      *jit_, *device_,
      {"block_size=64", "partition_size=64", "block_n=32", "q_rows=16", "q_len=2"},
      testing::mlaProblem(16, {2, 65}, 0, 2));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, MlaOnWaveModel, ::testing::Values("gfx942", "gfx1100"));

}  // namespace
}  // namespace tilejit
