// Prefill on the CPU backend against the float64 reference (un-packed q/k/v, NaN tokens past
// the last sequence, poisoned output and LSE): lengths 0, 1, tile - 1, tile, tile + 1 and a
// longer one for both tiles, GQA 1, 4, 8, 16, every head size and MLA's 192/128, causal with
// k as long as q and longer (bottom-right) and shorter (rows that see no key), non-causal,
// sliding window, soft cap, ALiBi, f16. Mutants that must fail are below.
#include <gtest/gtest.h>


#include "../prefill_cases.h"

namespace tilejit {
namespace {

using testing::prefillProblem;

struct PrefillCase {
  std::string name;
  std::vector<std::string> config;  // op parameters, "name=value"
  PrefillProblem problem;
};

// Around 16-row q tiles and 32-key k tiles.
const std::vector<int64_t> kEdges = {0, 1, 15, 16, 17, 31, 32, 33, 100};
const std::vector<std::string> kTiles = {"block_m=16", "block_n=32"};

std::vector<std::string> with(std::vector<std::string> extra) {
  std::vector<std::string> all = kTiles;
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

PrefillProblem windowed(PrefillProblem p, int64_t window) {
  p.window = window;
  return p;
}

std::vector<PrefillCase> cases() {
  std::vector<PrefillCase> all = {
      {"CausalEdges", with({}), prefillProblem(2, kEdges)},
      {"NonCausalEdges", with({"causal=0"}), prefillProblem(2, kEdges)},
      // k longer than q (a prefix): bottom-right alignment; k shorter: rows that see nothing.
      {"CausalLongerKeys", with({}), prefillProblem(2, {1, 16, 17, 40}, {33, 16, 50, 131})},
      {"CausalShorterKeys", with({}), prefillProblem(2, {20, 33, 5}, {3, 17, 0})},
      {"NonCausalOtherLengths", with({"causal=0"}), prefillProblem(2, {5, 40, 0}, {70, 0, 9})},
      {"Gqa4", with({"gqa_ratio=4"}), prefillProblem(8, {17, 50})},
      {"Gqa8", with({"gqa_ratio=8"}), prefillProblem(8, {1, 33})},
      {"Gqa16NonCausal", with({"gqa_ratio=16", "causal=0"}), prefillProblem(16, {31, 7})},
      {"Window", with({}), windowed(prefillProblem(2, {1, 40, 100}, {1, 70, 100}), 19)},
      {"WindowNonCausal", with({"causal=0"}), windowed(prefillProblem(2, {40, 64}), 33)},
      {"SoftCap", with({"soft_cap=1"}), prefillProblem(2, {17, 65})},
      {"Alibi", with({"alibi=1"}), prefillProblem(4, {17, 65}, {30, 65})},
      {"AlibiNonCausal", with({"alibi=1", "causal=0"}), prefillProblem(2, {33, 9})},
      {"SoftCapAlibiWindow", with({"soft_cap=1", "alibi=1"}),
       windowed(prefillProblem(2, {50}, {80}), 40)},
      {"F16", with({"dtype=f16"}), prefillProblem(2, {1, 33, 70})},
      {"MlaHeads192V128", with({"head_size=192", "v_head_size=128"}), prefillProblem(2, {17, 40})},
      {"LargeTiles", {"block_m=64", "block_n=64"}, prefillProblem(2, {63, 64, 65, 200})},
      {"SmallTiles", {"block_m=16", "block_n=16"}, prefillProblem(2, {15, 16, 17, 130})},
      // The target's tuning (the CPU's rows).
      {"Tuned", {}, prefillProblem(4, {0, 1, 300, 257})},
  };
  for (const char* d : {"64", "80", "96", "192", "256"})
    all.push_back({std::string("Head") + d,
                   with({std::string("head_size=") + d, std::string("v_head_size=") + d}),
                   prefillProblem(2, {17, 33})});
  return all;
}

absl::StatusOr<AttentionCheck> runCase(const std::vector<std::string>& assignments,
                                       const PrefillProblem& problem,
                                       const std::string& mutant = "") {
  auto device = createCpuDevice();
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<JitCompiler> jit, JitCompiler::create());
  return testing::checkPrefillCase(*jit, *device, assignments, problem, mutant);
}

class PrefillOnCpu : public ::testing::TestWithParam<PrefillCase> {};

TEST_P(PrefillOnCpu, MatchesReference) {
  auto check = runCase(GetParam().config, GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, PrefillOnCpu, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// The mutant fails the check of `p` under `config` that the shipped template passes.
void expectMutantCaught(const std::vector<testing::Edit>& edits,
                        const std::vector<std::string>& config, const PrefillProblem& p) {
  testing::expectMutantCaught("prefill", edits, [&](const std::string& mutant) {
    return runCase(config, p, mutant);
  });
}

TEST(PrefillCheck, CatchesALoopThatStopsOneTileEarly) {
  expectMutantCaught({{"scf.for %t0 = %lo to %hi step %block_n",
                       "scf.for %t0 = %lo to %k_limit_early step %block_n"},
                      {"%k_limit = arith.addi %k_start, %hi : index",
                       "%k_limit = arith.addi %k_start, %hi : index\n"
                       "      %k_limit_early = arith.subi %hi, %block_n : index"}},
                     with({"causal=0"}), prefillProblem(2, {40, 70}));
}

TEST(PrefillCheck, CatchesTopLeftCausalAlignment) {
  expectMutantCaught({{"%offset = arith.subi %k_len, %q_len : index", "%offset = arith.constant 0 : index"}},
                     with({}), prefillProblem(2, {10, 20}, {40, 20}));
}

TEST(PrefillCheck, CatchesTheDiagonalTileLeftUnmasked) {
  expectMutantCaught({{"%straddles_diagonal = arith.andi %causal, %past_diagonal : i1",
                       "%straddles_diagonal = arith.andi %causal, %false_mask : i1"},
                      {"%true = arith.constant true", "%true = arith.constant true\n"
                                                      "      %false_mask = arith.constant false"}},
                     with({}), prefillProblem(2, {40, 70}));
}

TEST(PrefillCheck, CatchesAWindowOneKeyWide) {
  expectMutantCaught({{"%window_first = arith.addi %window_from, %c1 : index",
                       "%window_first = arith.addi %window_from, %c0 : index"},
                      {"%in_window = arith.cmpi slt, %distance_w, %window_2d",
                       "%in_window = arith.cmpi sle, %distance_w, %window_2d"}},
                     with({}), windowed(prefillProblem(2, {40, 70}), 19));
}

TEST(PrefillCheck, CatchesTheWrongKvHead) {
  expectMutantCaught({{"%kv_head = arith.divsi %head, %ratio : index",
                       "%kv_head = arith.remsi %head, %ratio : index"}},
                     with({"gqa_ratio=2"}), prefillProblem(4, {20, 33}));
}

TEST(PrefillCheck, CatchesAlibiWithoutTheDistance) {
  expectMutantCaught({{"%far = math.absf %distance_f : tensor<?x?xf32>",
                       "%far = arith.negf %distance_f : tensor<?x?xf32>"}},
                     with({"alibi=1", "causal=0"}), prefillProblem(2, {20, 33}));
}

TEST(PrefillCheck, CatchesTheSoftCapLeftOut) {
  expectMutantCaught({{"%out = arith.mulf %tanh, %cap : tensor<?x?xf32>",
                       "%out = arith.mulf %ratio_s, %cap : tensor<?x?xf32>"}},
                     with({"soft_cap=1"}), prefillProblem(2, {20, 33}));
}

TEST(PrefillCheck, CatchesAnLseInBaseTwo) {
  expectMutantCaught({{"%lse_valid = arith.addf %m_natural, %log_l : tensor<?xf32>",
                       "%lse_valid = arith.addf %m, %log_l : tensor<?xf32>"}},
                     with({}), prefillProblem(2, {20, 33}));
}

TEST(PrefillCheck, CatchesTilesOfTheWrongSequence) {
  // Tiles counted from the sequence's first instead of its last: the reverse order's mirror
  // reads rows of the wrong tile (and leaves others unwritten).
  expectMutantCaught({{"%tile_n = arith.select %here, %from_last, %tile_i : index",
                       "%from_first = arith.subi %program, %base : index\n"
                       "      %tile_n = arith.select %here, %from_first, %from_last : index"}},
                     with({}), prefillProblem(2, {40, 17, 50}));
}

TEST(PrefillCheck, RejectsAHeadSizeOutsideTheDomain) {
  auto check = runCase(with({"head_size=112", "v_head_size=112"}), prefillProblem(2, {1}));
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.status().message()).find("head_size"), std::string::npos)
      << check.status();
}

TEST(PrefillCheck, RejectsAVHeadOtherThanMla) {
  auto check = runCase(with({"head_size=128", "v_head_size=64"}), prefillProblem(2, {1}));
  ASSERT_FALSE(check.ok());
  EXPECT_NE(std::string(check.status().message()).find("v_head_size"), std::string::npos)
      << check.status();
}

TEST(PrefillCheck, RejectsKvHeadsThatAreNotTheGqaRatio) {
  // 4 q heads with gqa_ratio=4 expects one kv head; the problem is built for gqa_ratio 2.
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto op = testing::makeOp(**jit, *device, "prefill", with({"gqa_ratio=4"}), "");
  ASSERT_TRUE(op.ok()) << op.status();
  auto lied = testing::makeOp(**jit, *device, "prefill", with({"gqa_ratio=2"}), "");
  ASSERT_TRUE(lied.ok());
  // The gqa_ratio=2 problem (2 kv heads) run through the gqa_ratio=4 op.
  std::vector<KernelArg> args;
  HostTensor q(DType::kBF16, {5, 4, 128}), k(DType::kBF16, {5, 2, 128}), o(DType::kBF16, {5, 4, 128});
  HostTensor lse(DType::kF32, {4, 5}), cu(DType::kI32, {2}), slopes(DType::kF32, {4});
  cu.set(1, 5);
  std::map<std::string, KernelArg> byName = {
      {"output", headsMajor(TensorArg::contiguous(o.bytes.data(), DType::kBF16, {5, 4, 128}))},
      {"lse", TensorArg::contiguous(lse.bytes.data(), DType::kF32, {4, 5})},
      {"query", headsMajor(TensorArg::contiguous(q.bytes.data(), DType::kBF16, {5, 4, 128}))},
      {"key", headsMajor(TensorArg::contiguous(k.bytes.data(), DType::kBF16, {5, 2, 128}))},
      {"value", headsMajor(TensorArg::contiguous(k.bytes.data(), DType::kBF16, {5, 2, 128}))},
      {"cu_seqlens_q", TensorArg::contiguous(cu.bytes.data(), DType::kI32, {2})},
      {"cu_seqlens_k", TensorArg::contiguous(cu.bytes.data(), DType::kI32, {2})},
      {"alibi_slopes", TensorArg::contiguous(slopes.bytes.data(), DType::kF32, {4})},
      {"scale", ScalarArg::f32(0.1f)},
      {"soft_cap_value", ScalarArg::f32(0)},
      {"sliding_window", ScalarArg::i64(0)}};
  auto ordered = (*op)->argumentsInOrder(byName);
  ASSERT_TRUE(ordered.ok());
  absl::Status status = (*op)->run(*ordered);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("gqa_ratio"), std::string::npos) << status;
  EXPECT_TRUE((*lied)->run(*ordered).ok());
}

}  // namespace
}  // namespace tilejit
