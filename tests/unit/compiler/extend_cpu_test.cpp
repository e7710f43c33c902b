// Extend on the CPU backend against the float64 reference (un-paged K/V, NaN in unused blocks,
// past each sequence's end and below padded blocks, shuffled block tables, poisoned output and
// LSE): 1, 2..8 (speculative verify) and chunks of new tokens over contexts of 0 and at block
// and tile edges, block sizes 1 to 256, both cache layouts, GQA, window, soft cap, ALiBi,
// MLA's 192/128 heads, the CPU's tuning; seq_lens of another batch rejected by name. Mutants
// that must fail are below.
#include <gtest/gtest.h>

#include <algorithm>

#include "../prefill_cases.h"

namespace tilejit {
namespace {

struct ExtendCase {
  std::string name;
  std::vector<std::string> config;  // op parameters, "name=value"
  ExtendProblem problem;
};

using testing::extendProblem;

ExtendProblem padded(ExtendProblem p, int64_t blocks) {
  p.padBlocks = blocks;
  return p;
}

const std::vector<std::string> kTiles = {"block_m=16", "block_n=32"};

// The tiles, 16-token blocks unless `extra` names a block size, and `extra`.
std::vector<std::string> with(std::vector<std::string> extra) {
  std::vector<std::string> all = kTiles;
  if (std::none_of(extra.begin(), extra.end(),
                   [](const std::string& a) { return a.rfind("block_size=", 0) == 0; }))
    all.push_back("block_size=16");
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

// New tokens 1, 2, 8 (verify), 15..17 (a q tile), 33; contexts 0, 1, 15, 16, 17 (blocks),
// 31, 32, 33 (key tiles), 100.
const std::vector<int64_t> kNew = {1, 2, 8, 15, 16, 17, 33, 1, 40};
const std::vector<int64_t> kContext = {0, 1, 15, 16, 17, 31, 32, 33, 100};

std::vector<ExtendCase> cases() {
  return {
      {"Edges", with({}), extendProblem(2, kNew, kContext)},
      {"Block1", with({"block_size=1"}), extendProblem(2, {1, 5, 17}, {0, 9, 40})},
      {"Block8", with({"block_size=8"}), extendProblem(2, {3, 17}, {7, 64})},
      {"Block256", with({"block_size=256"}), extendProblem(2, {17, 40}, {255, 217})},
      {"Shuffled", with({"kv_layout=shuffled"}), extendProblem(2, {2, 17, 33}, {15, 16, 60})},
      {"Gqa4", with({"gqa_ratio=4"}), extendProblem(8, {4, 20}, {30, 50})},
      {"Gqa16", with({"gqa_ratio=16"}), extendProblem(16, {8, 3}, {21, 40})},
      {"NonCausal", with({"causal=0"}), extendProblem(2, {5, 17}, {20, 33})},
      {"Window", with({}), extendProblem(2, {5, 40}, {60, 30}, 25)},
      {"SoftCapAlibi", with({"soft_cap=1", "alibi=1"}), extendProblem(2, {17, 6}, {40, 70})},
      {"F16", with({"dtype=f16"}), extendProblem(2, {9, 33}, {16, 50})},
      {"MlaHeads192V128", with({"head_size=192", "v_head_size=128"}), extendProblem(1, {7, 20}, {30, 40})},
      {"Head64", with({"head_size=64", "v_head_size=64"}), extendProblem(2, {7, 20}, {30, 40})},
      {"Head256", with({"head_size=256", "v_head_size=256"}), extendProblem(1, {7, 20}, {30, 40})},
      // The sequences' blocks past unused ones (the addressing of the large-cache case).
      {"PaddedBlocks", with({}), padded(extendProblem(2, {3, 20}, {40, 70}), 9)},
      {"Tuned", {}, extendProblem(4, {1, 2, 130, 64}, {300, 0, 200, 1})},
  };
}

absl::StatusOr<AttentionCheck> runCase(const std::vector<std::string>& assignments,
                                       const ExtendProblem& problem,
                                       const std::string& mutant = "") {
  auto device = createCpuDevice();
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  return testing::checkExtendCase(*jit, *device, assignments, problem, mutant);
}

class ExtendOnCpu : public ::testing::TestWithParam<ExtendCase> {};

TEST_P(ExtendOnCpu, MatchesReference) {
  auto check = runCase(GetParam().config, GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, ExtendOnCpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// The mutant fails the check of `p` under `config` that the shipped template passes.
void expectMutantCaught(const std::vector<testing::Edit>& edits,
                        const std::vector<std::string>& config, const ExtendProblem& p) {
  testing::expectMutantCaught("extend", edits, [&](const std::string& mutant) {
    return runCase(config, p, mutant);
  });
}

TEST(ExtendCheck, CatchesNewTokensThatSeeTheWholeSequence) {
  expectMutantCaught({{"%hi = arith.select %causal, %causal_end, %k_len : index",
                       "%hi = arith.select %causal, %k_len, %k_len : index"},
                      {"%causal_ok = arith.ori %seen, %acausal_2d : tensor<?x?xi1>",
                       "%causal_ok = arith.ori %in_keys, %acausal_2d : tensor<?x?xi1>"}},
                     with({}), extendProblem(2, {5, 17}, {20, 33}));
}

TEST(ExtendCheck, CatchesTheContextLeftOut) {
  // The new tokens see only themselves (prefill over the new tokens alone).
  expectMutantCaught({{"%lo = arith.select %has_window, %window_lo, %c0 : index",
                       "%lo_all = arith.select %has_window, %window_lo, %c0 : index\n"
                       "      %lo = arith.maxsi %lo_all, %offset : index"}},
                     with({}), extendProblem(2, {5, 17}, {20, 33}));
}

TEST(ExtendCheck, CatchesTheLastTokenUnread) {
  expectMutantCaught({{"%k_len = arith.maxsi %k_len_raw, %c0 : index",
                       "%k_len_short = arith.subi %k_len_raw, %c1 : index\n"
                       "      %k_len = arith.maxsi %k_len_short, %c0 : index"}},
                     with({"causal=0"}), extendProblem(2, {5, 17}, {20, 33}));
}

TEST(ExtendCheck, RejectsABlockSizeOutsideTheDomain) {
  auto check = runCase(with({"block_size=24"}), extendProblem(2, {1}, {1}));
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.status().message()).find("block_size"), std::string::npos)
      << check.status();
}

TEST(ExtendCheck, RejectsSeqLensOfAnotherBatch) {
  // cu_seqlens_q holds one sequence; seq_lens two (then one, which runs).
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto op = testing::makeOp(**jit, *device, "extend", with({}), "");
  ASSERT_TRUE(op.ok()) << op.status();
  HostTensor q(DType::kBF16, {5, 2, 128}), o(DType::kBF16, {5, 2, 128});
  HostTensor cache(DType::kBF16, {4, 16, 2, 128}), table(DType::kI32, {2, 1});
  HostTensor lse(DType::kF32, {2, 5}), cu(DType::kI32, {2}), lens(DType::kI32, {2});
  HostTensor slopes(DType::kF32, {2});
  cu.set(1, 5);
  lens.set(0, 5);
  // A dense view of a host tensor (the CPU device reads host memory).
  auto shaped = [](HostTensor& t) {
    TensorArg a;
    a.data = t.bytes.data();
    a.dtype = t.dtype;
    a.rank = int(t.shape.size());
    int64_t stride = 1;
    for (int d = a.rank - 1; d >= 0; --d) {
      a.shape[d] = t.shape[size_t(d)];
      a.strides[d] = stride;
      stride *= t.shape[size_t(d)];
    }
    return a;
  };
  std::map<std::string, KernelArg> byName = {
      {"output", headsMajor(shaped(o))},  {"lse", shaped(lse)},
      {"query", headsMajor(shaped(q))},   {"key_cache", shaped(cache)},
      {"value_cache", shaped(cache)},     {"block_tables", shaped(table)},
      {"seq_lens", shaped(lens)},         {"cu_seqlens_q", shaped(cu)},
      {"alibi_slopes", shaped(slopes)},   {"scale", ScalarArg::f32(0.1f)},
      {"soft_cap_value", ScalarArg::f32(0)}, {"sliding_window", ScalarArg::i64(0)}};
  auto ordered = (*op)->argumentsInOrder(byName);
  ASSERT_TRUE(ordered.ok());
  absl::Status status = (*op)->run(*ordered);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("seq_lens"), std::string::npos) << status;
  HostTensor one(DType::kI32, {1}), oneTable(DType::kI32, {1, 1});
  one.set(0, 5);
  byName.at("seq_lens") = shaped(one);
  byName.at("block_tables") = shaped(oneTable);
  auto fixed = (*op)->argumentsInOrder(byName);
  ASSERT_TRUE(fixed.ok());
  EXPECT_TRUE((*op)->run(*fixed).ok());
}

}  // namespace
}  // namespace tilejit
