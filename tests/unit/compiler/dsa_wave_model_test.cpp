// The DSA decode kernels' HIP translation units on the CPU wave model (every lane a fiber,
// the wave operations lane-exact) for a wave64 (gfx942) and a wave32 (gfx1100) target: the
// candidate mask's seed-004 set and the indexer cache kernels at block sizes off multiples
// of 16. Small tiles and grids keep the modelled programs few. Not run on AMD silicon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "../dsa_cases.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"

namespace tilejit {
namespace {

using ::testing::IsEmpty;

class DsaOnWaveModel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto device = createWaveModelDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status();
    suite_.device = std::move(*device);
    auto jit = JitCompiler::create();
    ASSERT_TRUE(jit.ok()) << jit.status();
    suite_.jit = std::move(*jit);
  }
  std::unique_ptr<Op> op(std::string_view name, std::vector<std::string> assignments) {
    auto created = testing::createDsaOp(suite_, name, std::move(assignments));
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? std::move(*created) : nullptr;
  }
  testing::SuiteResources suite_{testing::SuiteDevice::kCpu};  // device and JIT replaced
  testing::AmdRoute route_;  // the hip backend compiles for the wave model while a test runs
};

TEST_P(DsaOnWaveModel, CandidateMaskMatchesSharedKernelWithinEnds) {
  auto mask = op("candidate_mask", {"block_size=8", "has_starts=1", "row_repeat=2", "tile=128",
                                    "grid_cols=2", "num_warps=2"});
  ASSERT_NE(mask, nullptr);
  EXPECT_THAT(testing::candidateMaskFailures(suite_, *mask), IsEmpty());
}

TEST_P(DsaOnWaveModel, IndexerCacheKernelsMatchTheReference) {
  for (int64_t bs : {1, 24}) {
    const std::string block = "block_size=" + std::to_string(bs);
    auto quant = op("indexer_k_quant_and_cache", {block, "scale_format=ue8m0"});
    auto gather = op("gather_indexer_k_quant_cache", {block});
    ASSERT_NE(quant, nullptr);
    ASSERT_NE(gather, nullptr);
    EXPECT_THAT(testing::indexerFailures(suite_, *quant, gather.get(), bs, true, 7), IsEmpty());
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, DsaOnWaveModel, ::testing::Values("gfx942", "gfx1100"));

}  // namespace
}  // namespace tilejit
