// The HIP device library on the CPU wave model (templates/device/hip_wave_model): the emitted
// HIP translation units of shipped ops, compiled by the host clang with every lane of a
// workgroup a fiber and the wave operations modelled lane-exactly, pass the ops' reference
// checks for a wave64 (gfx942) and a wave32 (gfx1100) target. Not run on AMD silicon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/op.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

// Chooses the wave-model toolchain for the hip backend while it lives; other tests of this
// binary see the route they had.
class WaveModelRoute {
 public:
  WaveModelRoute() {
    if (const char* route = std::getenv("TILEJIT_AMD_TOOLCHAIN")) saved_ = route;
    setenv("TILEJIT_AMD_TOOLCHAIN", "wave-model", 1);
  }
  ~WaveModelRoute() {
    if (saved_) setenv("TILEJIT_AMD_TOOLCHAIN", saved_->c_str(), 1);
    else unsetenv("TILEJIT_AMD_TOOLCHAIN");
  }

 private:
  std::optional<std::string> saved_;
};

absl::StatusOr<OpCheckReport> checkOnWaveModel(const std::string& op, const std::string& target,
                                               const std::vector<std::string>& assignments = {}) {
  WaveModelRoute route;
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, createWaveModelDevice(target));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  const OpDefinition* definition = OpRegistry::shipped().find(op);
  const OpReference* reference = OpReferenceRegistry::shipped().find(op);
  if (!definition || !reference) return absl::NotFoundError("no op or reference " + op);
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(assignments, reference->defaults));
  OpCheckOptions options;
  options.iterations = 0;
  options.shape = {{"num_tokens", 12}, {"num_heads", 4}, {"num_kv_heads", 2},
                   {"num_blocks", 16}, {"num_seqs", 3}, {"context", 100}};
  return reference->check(*jit, *device, *definition, config, options);
}

class WaveModel : public ::testing::TestWithParam<std::string> {};

TEST_P(WaveModel, MergeAttnStatesPassesItsReference) {
  auto report = checkOnWaveModel("merge_attn_states", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

TEST_P(WaveModel, ReshapeAndCachePassesItsReference) {
  auto report = checkOnWaveModel("reshape_and_cache", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

TEST_P(WaveModel, PagedDecodePassesItsReference) {
  auto report = checkOnWaveModel("paged_decode", GetParam());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

// Rows of 128 scores (row reductions across 16 lanes: ds_swizzle xor 8) over the shuffled
// cache layout (ShuffledK's X-element pieces, ShuffledV's single elements).
TEST_P(WaveModel, PagedDecodeShuffledWithWideBlocksPassesItsReference) {
  auto report = checkOnWaveModel("paged_decode", GetParam(), {"block_n=128", "kv_layout=shuffled"});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

INSTANTIATE_TEST_SUITE_P(Targets, WaveModel, ::testing::Values("gfx942", "gfx1100"));

TEST(WaveModelDevice, RefusesTargetsItDoesNotModel) {
  auto device = createWaveModelDevice("gfx1201");
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(std::string(device.status().message()), HasSubstr("not 'gfx1201'"));
}

}  // namespace
}  // namespace tilejit
