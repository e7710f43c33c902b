// Paged decode on the CPU backend against the float64 reference (NaN-poisoned tails and
// unused blocks, shuffled tables, poisoned outputs), and proof that the check can fail: a
// mutant that reads the whole last V block into the PV product is caught, and so are mutants
// of the sinks (left out of the denominator, counted in every partition, another head's) and
// of the split of large groups into row blocks (the last block dropped, blocks overlapping) and
// of fp8 caches' scales (V's applied twice, another kv head's, K's left out).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../device_suite.h"
#include "compiler/embedded_files.h"

namespace tilejit {
namespace {

using PagedDecodeOnCpu = testing::DeviceSuiteTest<testing::DecodeCase, testing::SuiteDevice::kCpu>;

TEST_P(PagedDecodeOnCpu, MatchesReference) {
  testing::expectDecodeCaseMatches(*suite_, GetParam(), /*longContext=*/false, {7});
}

INSTANTIATE_TEST_SUITE_P(Domain, PagedDecodeOnCpu, ::testing::ValuesIn(testing::decodeCases(false, /*clusters=*/false)),
                         [](const auto& info) { return info.param.name; });

TEST(PagedDecodeCheck, CatchesAKernelThatReadsTheWholeLastBlock) {
  // The mutant's V load ignores the sequence end (limit = the partition end rounded up to a
  // whole block), as vLLM's vectorised V read did (CONTEXT.md section 2). Masked logits give
  // P = 0, but 0 * NaN from the poisoned tail is NaN.
  auto text = shippedTemplate("paged_decode");
  ASSERT_TRUE(text.ok());
  std::string mutant = *text;
  const std::string endLine = "%end = arith.minsi %past_partition, %seq_len : index\n";
  size_t at = mutant.find(endLine);
  ASSERT_NE(at, std::string::npos);
  mutant.insert(at + endLine.size(),
                "      %block_size_c = tj.param_value @block_size : index\n"
                "      %end_blocks = arith.ceildivsi %end, %block_size_c : index\n"
                "      %whole_blocks = arith.muli %end_blocks, %block_size_c : index\n");
  // Every V load of the kernel takes the whole-block limit.
  int replaced = 0;
  for (size_t v = mutant.find("%value_cache, %block_tables[%seq] tokens"); v != std::string::npos;
       v = mutant.find("%value_cache, %block_tables[%seq] tokens", v + 1)) {
    size_t limit = mutant.find("limit %end", v);
    ASSERT_NE(limit, std::string::npos);
    mutant.replace(limit, 10, "limit %whole_blocks");
    ++replaced;
  }
  ASSERT_GE(replaced, 1);
  auto dir = ::testing::TempDir() + "/mutant_templates";
  std::filesystem::create_directories(dir);
  // Route the shipped names to files via KernelSpec::fromFile through a private JIT.
  std::string path = dir + "/paged_decode.mlir";
  { std::ofstream(path) << mutant; }
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  PagedDecodeConfig config;
  config.gqaRatio = 2;
  config.blockSize = 16;
  config.templateOverrides["paged_decode"] = path;
  DecodeProblem problem;
  problem.numKvHeads = 1;
  problem.numQHeads = 2;
  problem.seqLens = {5, 16, 17, 40};
  auto check = checkPagedDecode(**jit, *device, config, problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_FALSE(check->passed) << "the mutant passed: " << check->detail;
  EXPECT_GT(check->nanOutputs, 0);
  // The same problem with the shipped template passes.
  config.templateOverrides.clear();
  auto good = checkPagedDecode(**jit, *device, config, problem);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->passed) << good->detail;
}

// The shipped paged_decode with `from` replaced by `to` (once; it must be there) fails the check
// of `config` on `problem`, which the shipped template passes.
void expectMutantCaught(const std::string& from, const std::string& to, PagedDecodeConfig config,
                        const DecodeProblem& problem) {
  auto text = shippedTemplate("paged_decode");
  ASSERT_TRUE(text.ok());
  std::string mutant = *text;
  size_t at = mutant.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  mutant.replace(at, from.size(), to);
  auto dir = ::testing::TempDir() + "/mutant_templates";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/paged_decode_" + std::to_string(std::hash<std::string>()(to)) + ".mlir";
  { std::ofstream(path) << mutant; }
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto good = checkPagedDecode(**jit, *device, config, problem);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_TRUE(good->passed) << good->detail;
  config.templateOverrides["paged_decode"] = path;
  auto check = checkPagedDecode(**jit, *device, config, problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_FALSE(check->passed) << "the mutant (" << to << ") passed: " << check->detail;
}

// A small case: GQA `ratio` in 64-token partitions of 32-token tiles (16 q rows), on
// `kvHeads` kv heads, lengths inside the first, at the edge of and across partitions.
PagedDecodeConfig smallConfig(int64_t ratio) {
  PagedDecodeConfig config;
  config.gqaRatio = ratio;
  config.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"q_rows", "16"}};
  return config;
}

DecodeProblem smallProblem(int64_t kvHeads, int64_t ratio) {
  DecodeProblem problem;
  problem.numKvHeads = kvHeads;
  problem.numQHeads = kvHeads * ratio;
  problem.seqLens = {5, 64, 65, 130};
  return problem;
}

PagedDecodeConfig sinkConfig() {
  PagedDecodeConfig config = smallConfig(2);
  config.sinks = true;
  return config;
}

DecodeProblem sinkProblem() { return smallProblem(1, 2); }

TEST(PagedDecodeSinks, CatchesASinkLeftOutOfTheDenominator) {
  expectMutantCaught("%l_sink = arith.addf %l_rescaled, %sink_p", "%l_sink = arith.addf %l_rescaled, %zero_r",
                     sinkConfig(), sinkProblem());
}

TEST(PagedDecodeSinks, CatchesASinkCountedInEveryPartition) {
  expectMutantCaught("%holds_sink = arith.cmpi eq, %partition, %c0", "%holds_sink = arith.cmpi sge, %partition, %c0",
                     sinkConfig(), sinkProblem());
}

TEST(PagedDecodeSinks, CatchesAnotherHeadsSink) {
  // Every row takes its group's first sink.
  expectMutantCaught("%sink = tj.load %sinks[%head0] limits [%head_end] [q_rows]",
                     "%sink_first = tj.load_scalar %sinks[%head0] : !tj.view<[num_q_heads], f32> -> f32\n"
                     "          %sink = tj.full %sink_first [q_rows] : f32 -> tensor<?xf32>\n"
                     "          %sink_unused = tj.load %sinks[%head0] limits [%head_end] [q_rows]",
                     sinkConfig(), sinkProblem());
}

TEST(PagedDecodeSinks, RequiresTheSinksArgument) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto op = PagedDecode::create(**jit, *device, sinkConfig());
  ASSERT_TRUE(op.ok()) << op.status();
  absl::Status launched = (*op)(PagedDecodeArgs{});
  EXPECT_THAT(std::string(launched.message()), ::testing::HasSubstr("reads the argument 'sinks'"));
}

// A group of 40 on one kv head in row blocks of 16, 16 and 8: a grid without the last block,
// or blocks that all start at the group's first row, leave rows unwritten (NaN) or wrong.
PagedDecodeConfig splitConfig() { return smallConfig(40); }

DecodeProblem splitProblem() { return smallProblem(2, 40); }

TEST(PagedDecodeSplitGroup, CatchesAGridWithoutTheLastRowBlock) {
  expectMutantCaught("%row_blocks = arith.ceildivsi %group, %rows : index",
                     "%row_blocks = arith.divsi %group, %rows : index", splitConfig(), splitProblem());
}

TEST(PagedDecodeSplitGroup, CatchesRowBlocksThatOverlap) {
  expectMutantCaught("%head0 = arith.addi %group0, %block_rows : index",
                     "%head0 = arith.addi %group0, %row_block : index", splitConfig(), splitProblem());
}

TEST(PagedDecodeSplitGroup, RefusesTheInKernelMerge) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  PagedDecodeConfig config = splitConfig();
  config.tuning["merge_in_kernel"] = "1";
  auto op = PagedDecode::create(**jit, *device, config);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(std::string(op.status().message()),
              ::testing::HasSubstr("(gqa_ratio=40, merge_in_kernel=1, q_rows=16)"));
}

// An fp8 cache, scales per kv head (three heads).
PagedDecodeConfig fp8Config() {
  PagedDecodeConfig config = smallConfig(2);
  config.kvCacheDtype = "fp8_e4m3";
  config.kvScale = "per_head";
  return config;
}

DecodeProblem fp8Problem() { return smallProblem(3, 2); }

TEST(PagedDecodeFp8, CatchesTheVScaleAppliedTwice) {
  expectMutantCaught("%v_scaled = arith.mulf %inverse_tokens, %v_scale_r : tensor<?xf32>",
                     "%v_once = arith.mulf %inverse_tokens, %v_scale_r : tensor<?xf32>\n"
                     "        %v_scaled = arith.mulf %v_once, %v_scale_r : tensor<?xf32>",
                     fp8Config(), fp8Problem());
}

TEST(PagedDecodeFp8, CatchesAnotherKvHeadsScale) {
  expectMutantCaught("%scale_at = arith.select %per_head, %kv_head, %c0 : index",
                     "%scale_at = arith.select %per_head, %c0, %c0 : index", fp8Config(), fp8Problem());
}

TEST(PagedDecodeFp8, CatchesTheKScaleLeftOut) {
  expectMutantCaught("%scale_k = arith.mulf %scale, %k_dequant : f32", "%scale_k = arith.mulf %scale, %v_dequant : f32",
                     fp8Config(), fp8Problem());
}

TEST(PagedDecodeFp8, RefusesTheShuffledLayoutAndScalesOfTheWrongShape) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  PagedDecodeConfig config = fp8Config();
  config.kvLayout = "shuffled";
  auto shuffled = PagedDecode::create(**jit, *device, config);
  ASSERT_FALSE(shuffled.ok());
  EXPECT_THAT(std::string(shuffled.status().message()),
              ::testing::HasSubstr("an fp8 kv_dtype needs kv_layout standard (kv_dtype=f8E4M3FN, kv_layout=shuffled)"));
  auto op = PagedDecode::create(**jit, *device, fp8Config());
  ASSERT_TRUE(op.ok()) << op.status();
  float one = 1;
  PagedDecodeArgs args;
  args.keyCache.rank = 4;
  args.keyCache.shape[2] = 3;
  args.kScales = TensorArg::contiguous(&one, DType::kF32, {1});
  args.vScales = args.kScales;
  absl::Status launched = (*op)(args);
  EXPECT_THAT(std::string(launched.message()),
              ::testing::HasSubstr("kv_scale=per_head reads 'k_scales' as [num_kv_heads = 3] f32; got rank 1 of 1"));
  args.kScales = {};
  EXPECT_THAT(std::string((*op)(args).message()), ::testing::HasSubstr("reads the argument 'k_scales'"));
}

TEST(PagedDecodeCluster, RefusedWhereTheTargetHasNoClusters) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  PagedDecodeConfig config;
  config.maxModelLen = 128;
  config.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"cluster_size", "2"}};
  auto op = PagedDecode::create(**jit, *device, config);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(std::string(op.status().message()),
              ::testing::HasSubstr("cluster_size 2: target host has no thread-block clusters"));
}

}  // namespace
}  // namespace tilejit
