// The HIP device library on the CPU wave model (templates/device/hip_wave_model): the emitted
// HIP translation units of every shipped op, compiled by the host clang with every lane of a
// workgroup a fiber and the wave operations modelled lane-exactly, pass the ops' reference
// checks (NaN in unwritten cache slots and unused blocks, poisoned outputs) on all five AMD
// targets: gfx90a, gfx942 (MFMA 16x16x16), gfx950 (MFMA 16x16x32), gfx1100 (gfx11 WMMA) and
// gfx1201 (gfx12 WMMA). Not run on AMD silicon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "compiler/ops/op.h"
#include "runtime/backends/hip/wave_model_device.h"
#include "tests/unit/compiler/hip_wave_model_util.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

using testing::AmdRoute;

// One reference check: an op, its parameters and the problem's shape symbols.
struct ModelCase {
  std::string name;
  std::string op;
  std::vector<std::string> assignments;
  std::map<std::string, int64_t> shape;
};
void PrintTo(const ModelCase& modelCase, std::ostream* out) { *out << modelCase.name; }

// Three sequences of paged_decode's check are context - 37 s tokens long, the first 1.
const std::map<std::string, int64_t> kShape = {{"num_tokens", 12}, {"num_heads", 4},  {"num_kv_heads", 2},
                                               {"num_blocks", 16}, {"num_seqs", 3}, {"context", 100}};

std::map<std::string, int64_t> withContext(int64_t context) {
  std::map<std::string, int64_t> shape = kShape;
  shape["context"] = context;
  return shape;
}

const std::vector<ModelCase>& modelCases() {
  static const std::vector<ModelCase> cases = {
      {"MergeAttnStates", "merge_attn_states", {}, kShape},
      {"ReshapeAndCache", "reshape_and_cache", {}, kShape},
      {"ReshapeAndCacheShuffled", "reshape_and_cache", {"kv_layout=shuffled"}, kShape},
      {"ReshapeAndCacheBlockSize1", "reshape_and_cache", {"block_size=1"}, kShape},
      // Lengths 1, 63, 26: one partition of 512, every last block partly NaN.
      {"PagedDecode", "paged_decode", {}, kShape},
      // f16 operands: the f16 forms of MFMA/WMMA (their bf16 row's layout).
      {"PagedDecodeF16", "paged_decode", {"dtype=f16"}, kShape},
      // Rows of 128 scores (reductions across 16 lanes: ds_swizzle xor 8) over the shuffled
      // cache (ShuffledK's X-element pieces, ShuffledV's single elements).
      {"PagedDecodeShuffledBlockN128", "paged_decode", {"block_n=128", "kv_layout=shuffled"}, kShape},
      // Lengths 1, 64, 27 in partitions of 32: the split-K kernel and paged_decode_reduce.
      {"PagedDecodeSplitK", "paged_decode", {"partition_size=32"}, withContext(101)},
      // The same partitions merged by the split-K kernel's last program (arrive).
      {"PagedDecodeMergeInKernel", "paged_decode", {"partition_size=32", "merge_in_kernel=1"},
       withContext(101)},
      // One token per block: lengths 1, 40, 3, each token's row from its own block.
      {"PagedDecodeBlockSize1", "paged_decode", {"block_size=1"}, withContext(77)},
      // Blocks of 64 over tiles of 32 tokens (two tiles a block; the shuffled V's 8-token
      // groups), lengths 1, 64, 27: one full block, one mostly NaN.
      {"PagedDecodeShuffledBlockSize64", "paged_decode", {"block_size=64", "kv_layout=shuffled"},
       withContext(101)},
  };
  return cases;
}

absl::StatusOr<OpCheckReport> checkOnWaveModel(const ModelCase& modelCase, const std::string& target) {
  AmdRoute route;
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Device> device, createDeviceForTarget(target));
  if (device->name().find("wave model") == std::string::npos)
    return absl::InternalError("the device for " + target + " is " + device->name());
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  const OpDefinition* definition = OpRegistry::shipped().find(modelCase.op);
  const OpReference* reference = OpReferenceRegistry::shipped().find(modelCase.op);
  if (!definition || !reference) return absl::NotFoundError("no op or reference " + modelCase.op);
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(modelCase.assignments, reference->defaults));
  OpCheckOptions options;
  options.iterations = 0;
  options.shape = modelCase.shape;
  return reference->check(*jit, *device, *definition, config, options);
}

class WaveModel : public ::testing::TestWithParam<std::tuple<std::string, ModelCase>> {};

TEST_P(WaveModel, PassesTheOpsReference) {
  const auto& [target, modelCase] = GetParam();
  auto report = checkOnWaveModel(modelCase, target);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->check.passed) << report->check.detail;
}

INSTANTIATE_TEST_SUITE_P(
    Ops, WaveModel, ::testing::Combine(::testing::ValuesIn(testing::waveModelTargets()),
                                       ::testing::ValuesIn(modelCases())),
    [](const ::testing::TestParamInfo<WaveModel::ParamType>& info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param).name;
    });

}  // namespace
}  // namespace tilejit
