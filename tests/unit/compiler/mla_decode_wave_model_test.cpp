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

namespace tilejit {
namespace {

class MlaOnWaveModel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto device = createWaveModelDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = std::move(*device);
    auto jit = JitCompiler::create();
    ASSERT_TRUE(jit.ok()) << jit.status();
    jit_ = std::move(*jit);
  }
  std::unique_ptr<Device> device_;
  std::unique_ptr<JitCompiler> jit_;
  testing::AmdRoute route_;  // the hip backend compiles for the wave model while a test runs
};

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
