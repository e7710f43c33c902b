// Extend's HIP translation units on the CPU wave model for a wave64 (gfx942) and a wave32
// (gfx1100) target, against the float64 reference: paged K/V gathered through a shuffled block
// table into LDS feeding MFMA / WMMA, NaN past each end, verify-sized and chunk-sized new
// tokens, both cache layouts. Small problems keep the modelled programs few. Not run on AMD
// silicon.
#include <gtest/gtest.h>

#include "../prefill_cases.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"

namespace tilejit {
namespace {

class ExtendOnWaveModel : public ::testing::TestWithParam<std::string> {
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

ExtendProblem extendProblem(int64_t heads, std::vector<int64_t> qLens,
                            std::vector<int64_t> contextLens) {
  ExtendProblem p;
  p.numQHeads = heads;
  p.qLens = std::move(qLens);
  p.contextLens = std::move(contextLens);
  return p;
}

TEST_P(ExtendOnWaveModel, VerifyAndChunkMatchTheReference) {
  auto check = testing::checkExtendCase(
      *jit_, *device_, {"block_m=32", "block_n=32", "num_warps=4", "gqa_ratio=2"},
      extendProblem(4, {3, 33}, {40, 17}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

TEST_P(ExtendOnWaveModel, TunedShuffledCache) {
  auto check = testing::checkExtendCase(*jit_, *device_,
                                        {"kv_layout=shuffled", "head_size=64", "v_head_size=64"},
                                        extendProblem(2, {17, 1}, {50, 31}));
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, ExtendOnWaveModel, ::testing::Values("gfx942", "gfx1100"));

}  // namespace
}  // namespace tilejit
