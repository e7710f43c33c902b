// MLA decode on the CPU backend against the float64 reference (un-paged latents, NaN in unused
// blocks and past each end, shuffled tables, poisoned outputs and workspaces): block sizes 1 to
// 256, 16 to 128 q heads in one or several head blocks, lengths at block and partition edges,
// empty sequences, grids of one partition (no merge) and of many, 2 to 4 query tokens a
// sequence (causal among themselves). Mutants that must fail: the loop stopping one tile early,
// V stored from shifted columns, the rope columns left out of the logits, another head's q,
// every new token seeing the whole sequence.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../mla_cases.h"
#include "tests/unit/template_mutants.h"
#include "compiler/embedded_files.h"

namespace tilejit {
namespace {

struct MlaCase {
  std::string name;
  std::vector<std::string> config;  // op parameters, "name=value"
  MlaProblem problem;
};

using testing::mlaProblem;

MlaProblem padded(MlaProblem p, int64_t blocks) {
  p.padBlocks = blocks;
  return p;
}

// Lengths around 16-token blocks, 32-token tiles and 64-token partitions.
const std::vector<int64_t> kEdges = {0, 1, 15, 16, 17, 63, 64, 65, 128, 129, 200};

std::vector<MlaCase> cases() {
  const std::vector<std::string> split = {"partition_size=64", "block_n=32", "q_rows=16"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> all = split;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  return {
      {"Block16Heads16", with({"block_size=16"}), mlaProblem(16, kEdges)},
      {"Block64Heads16", with({"block_size=64"}), mlaProblem(16, kEdges)},
      {"Block1Heads16", with({"block_size=1"}), mlaProblem(16, {0, 1, 33, 64, 97})},
      {"Block8Heads32", with({"block_size=8"}), mlaProblem(32, {1, 7, 8, 9, 64, 130})},
      {"Block256Heads16", with({"block_size=256"}), mlaProblem(16, {1, 255, 256, 257, 300})},
      // 128 heads in blocks of 32 rows: four programs per (sequence, partition).
      {"Block64Heads128Rows32",
       {"block_size=64", "partition_size=64", "block_n=32", "q_rows=32"},
       mlaProblem(128, {1, 64, 65, 140})},
      // A head count that is no multiple of q_rows: the last block's rows are masked.
      {"Block16Heads20", with({"block_size=16"}), mlaProblem(20, {3, 70})},
      // One partition holds every context: no merge kernel work, zeros for the empty one.
      {"OnePartition", {"block_size=16", "partition_size=256", "block_n=32", "q_rows=16"},
       mlaProblem(16, {0, 1, 100, 256})},
      // The sequences' blocks past unused ones (the addressing of the 2^31-element GPU case).
      {"PaddedBlocks", with({"block_size=16"}), padded(mlaProblem(16, {1, 65, 130}), 7)},
      // MTP / speculative verify: the new tokens' ends straddle tiles and partitions (65 with
      // 2 tokens: the first token's keys fill one partition, the second's two).
      {"QLen2Block16", with({"block_size=16", "q_len=2"}),
       mlaProblem(16, {0, 2, 17, 64, 65, 66, 130}, 0, 2)},
      {"QLen3Block1", with({"block_size=1", "q_len=3"}), mlaProblem(16, {3, 40, 66}, 0, 3)},
      {"QLen4Block64Heads32", with({"block_size=64", "q_len=4"}),
       mlaProblem(32, {4, 67, 129, 200}, 0, 4)},
      // The target's tuning (the CPU's rows) at a context of many partitions.
      {"Tuned", {"block_size=64"}, mlaProblem(16, {1, 1000, 2100})},
  };
}

absl::StatusOr<MlaCheck> runCase(const std::vector<std::string>& assignments,
                                 const MlaProblem& problem, const std::string& mutant = "") {
  auto device = createCpuDevice();
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  return testing::checkMlaCase(*jit, *device, assignments, problem, mutant);
}

class MlaDecodeOnCpu : public ::testing::TestWithParam<MlaCase> {};

TEST_P(MlaDecodeOnCpu, MatchesReference) {
  auto check = runCase(GetParam().config, GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, MlaDecodeOnCpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

using testing::Edit;

// The shipped mla_decode with each edit's text replaced fails a check that the shipped template
// passes: by default sequences of one partition (output written by the split-K kernel) and of
// several.
void expectMutantCaught(const std::vector<Edit>& edits,
                        std::vector<std::string> config = {"block_size=16", "partition_size=64",
                                                           "block_n=32", "q_rows=16"},
                        const MlaProblem& p = mlaProblem(32, {1, 40, 64, 150})) {
  testing::expectMutantCaught("mla_decode", edits,
                              [&](const std::string& mutant) { return runCase(config, p, mutant); });
}

TEST(MlaDecodeCheck, CatchesALoopThatStopsOneTileEarly) {
  expectMutantCaught(
      {{"%m, %l_cols, %acc, %kv_past = scf.for %t0 = %start to %end step %block_n",
        "%end_early = arith.subi %end, %block_n : index\n"
        "      %m, %l_cols, %acc, %kv_past = scf.for %t0 = %start to %end_early step %block_n"}});
}

TEST(MlaDecodeCheck, CatchesVFromShiftedColumns) {
  // Both stores (final and partial) put V's column c at c + 64: output column c holds the
  // latent's column c - 64, the first 64 columns none.
  expectMutantCaught(
      {{"%c1 = arith.constant 1 : index\n",
        "%c1 = arith.constant 1 : index\n    %c64 = arith.constant 64 : index\n"},
       {"tj.store %final, %output[%token, %head0, %c0]",
        "tj.store %final, %output[%token, %head0, %c64]"},
       {"%partial_out[%token, %partition, %head0, %c0]",
        "%partial_out[%token, %partition, %head0, %c64]"}});
}

TEST(MlaDecodeCheck, CatchesLogitsWithoutTheRopeColumns) {
  expectMutantCaught({{"limits [%num_tokens, %head_end, %head_size] [q_rows, head_size]",
                       "limits [%num_tokens, %head_end, %v_head_size] [q_rows, head_size]"}});
}

TEST(MlaDecodeCheck, CatchesAnotherHeadsQuery) {
  expectMutantCaught({{"%q = tj.load %query[%token, %head0, %c0]",
                       "%head_next = arith.addi %head0, %c1 : index\n"
                       "      %q = tj.load %query[%token, %head_next, %c0]"}});
}

TEST(MlaDecodeCheck, CatchesNewTokensThatSeeTheWholeSequence) {
  expectMutantCaught({{"%seq_len = arith.maxsi %len_here, %c0 : index",
                       "%seq_len = arith.maxsi %seq_len_all, %c0 : index"}},
                     {"block_size=16", "partition_size=64", "block_n=32", "q_rows=16", "q_len=3"},
                     mlaProblem(16, {3, 40, 65, 130}, 0, 3));
}

TEST(MlaDecodeCheck, RejectsABlockSizeOutsideTheDomain) {
  auto check = runCase({"block_size=24"}, mlaProblem(16, {1}));
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.status().message()).find("block_size"), std::string::npos)
      << check.status();
}

}  // namespace
}  // namespace tilejit
