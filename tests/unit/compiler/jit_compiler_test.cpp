// The JIT pipeline's cache keys and errors, end to end: a changed device-library header or a
// different host compiler never reuses an old binary; wrong arguments and bad specs give the
// messages users act on.
#include "compiler/jit_compiler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/embedded_files.h"
#include "compiler/ops/paged_decode.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;

std::string keyOf(const KernelSpec& spec) {
  auto jit = JitCompiler::create();
  EXPECT_TRUE(jit.ok()) << jit.status();
  auto key = (*jit)->cacheKey(spec);
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : "";
}

TEST(JitCompilerKeys, ChangedDeviceLibraryHeaderChangesTheKey) {
  auto spec = KernelSpec::shipped("merge_attn_states", "host");
  ASSERT_TRUE(spec.ok());
  const std::string original = keyOf(*spec);
  // The same library read from disk gives the same key; one edited byte gives another.
  std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / "devlib";
  std::filesystem::remove_all(root);
  for (const EmbeddedFile& file : embeddedFiles()) {
    std::string path(file.path);
    if (path.rfind("device/cpu/", 0) != 0) continue;
    std::filesystem::path out = root / path.substr(std::string("device/").size());
    std::filesystem::create_directories(out.parent_path());
    std::ofstream(out, std::ios::binary) << file.content;
  }
  ASSERT_EQ(setenv("TILEJIT_DEVICE_LIB_DIR", root.c_str(), 1), 0);
  EXPECT_EQ(keyOf(*spec), original);
  std::ofstream(root / "cpu" / "tj" / "tile.h", std::ios::app) << "\n// edited\n";
  EXPECT_NE(keyOf(*spec), original);
  unsetenv("TILEJIT_DEVICE_LIB_DIR");
  EXPECT_EQ(keyOf(*spec), original);
}

TEST(JitCompilerKeys, AnotherHostCompilerChangesTheKey) {
  if (std::system("command -v clang++-22 >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "clang++-22 is not installed";
  auto spec = KernelSpec::shipped("reshape_and_cache", "host");
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(setenv("TILEJIT_HOST_CXX", "g++", 1), 0);
  const std::string gcc = keyOf(*spec);
  ASSERT_EQ(setenv("TILEJIT_HOST_CXX", "clang++-22", 1), 0);
  const std::string clang = keyOf(*spec);
  unsetenv("TILEJIT_HOST_CXX");
  EXPECT_NE(gcc, clang);
}

TEST(JitCompilerKeys, ParametersAndTargetsAreKeyed) {
  auto a = KernelSpec::shipped("merge_attn_states", "host", {{"head_size", "64"}});
  auto b = KernelSpec::shipped("merge_attn_states", "host", {{"head_size", "128"}});
  auto c = KernelSpec::shipped("merge_attn_states", "sm_90", {{"head_size", "64"}});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE(keyOf(*a), keyOf(*b));
  EXPECT_NE(keyOf(*a), keyOf(*c));
}

TEST(JitCompilerErrors, WrongArgumentsNameTheProblem) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto spec = KernelSpec::shipped("merge_attn_states", "host", {{"head_size", "64"}});
  ASSERT_TRUE(spec.ok());
  auto kernel = (*jit)->load(*device, *spec);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<uint16_t> out(4 * 2 * 64), wrongWidth(4 * 2 * 128);
  std::vector<float> lse(2 * 4);
  TensorArg output = TensorArg::contiguous(out.data(), DType::kBF16, {4, 2, 64});
  TensorArg outputLse = TensorArg::contiguous(lse.data(), DType::kF32, {2, 4});
  TensorArg f16 = TensorArg::contiguous(out.data(), DType::kF16, {4, 2, 64});
  TensorArg wide = TensorArg::contiguous(wrongWidth.data(), DType::kBF16, {4, 2, 128});
  TensorArg fewerTokens = TensorArg::contiguous(out.data(), DType::kBF16, {3, 2, 64});

  std::vector<KernelArg> args = {output, outputLse, f16, outputLse, output, outputLse};
  EXPECT_THAT(std::string(device->launch(**kernel, args).message()),
              HasSubstr("dtype f16 does not match the signature's bf16"));
  args = {output, outputLse, wide, outputLse, output, outputLse};
  EXPECT_THAT(std::string(device->launch(**kernel, args).message()), HasSubstr("must be 64"));
  args = {output, outputLse, fewerTokens, outputLse, output, outputLse};
  EXPECT_THAT(std::string(device->launch(**kernel, args).message()),
              HasSubstr("shape symbol 'num_tokens'"));
  args = {output, outputLse};
  EXPECT_THAT(std::string(device->launch(**kernel, args).message()),
              HasSubstr("wrong number of arguments: got 2"));
}

TEST(JitCompilerErrors, KernelForAnotherTargetIsRefused) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  auto spec = KernelSpec::shipped("merge_attn_states", "sm_90");
  ASSERT_TRUE(spec.ok());
  auto kernel = (*jit)->load(*device, *spec);
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(std::string(kernel.status().message()),
              HasSubstr("a kernel for target sm_90 cannot run on host CPU"));
}

TEST(JitCompilerErrors, UnknownTemplateListsTheShippedOnes) {
  auto spec = KernelSpec::shipped("flash_decode", "host");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(std::string(spec.status().message()),
              HasSubstr("no shipped template 'flash_decode'; shipped templates: candidate_mask"));
}

}  // namespace
}  // namespace tilejit

namespace tilejit {
namespace {

// Threads that ask one JIT for different kernels compile them side by side (emission is
// serialized, the toolchains are not), and each gets its own kernel.
// (disk cache on, target): the host compiler runs as processes, nvrtc in this one.
class JitCompilerThreads : public ::testing::TestWithParam<std::tuple<bool, std::string>> {};

TEST_P(JitCompilerThreads, DifferentKernelsCompileConcurrently) {
  const auto& [useDiskCache, target] = GetParam();
  auto description = lookupTarget(target);
  ASSERT_TRUE(description.ok());
  if (auto toolchain = createToolchain(**description); !toolchain.ok())
    GTEST_SKIP() << toolchain.status().message();
  JitOptions options;
  options.useDiskCache = useDiskCache;
  std::filesystem::path cacheDir = std::filesystem::path(::testing::TempDir()) / "threads-cache";
  std::filesystem::remove_all(cacheDir);
  options.cache.directory = cacheDir.string();
  auto jit = JitCompiler::create(options);
  ASSERT_TRUE(jit.ok()) << jit.status();
  std::vector<KernelSpec> specs;
  for (const char* heads : {"1", "2", "4", "8"}) {
    auto spec = KernelSpec::shipped("merge_attn_states", target, {{"heads_per_program", heads}});
    ASSERT_TRUE(spec.ok()) << spec.status();
    specs.push_back(*spec);
  }
  std::vector<absl::StatusOr<CompiledKernel>> results(specs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < specs.size(); ++i)
    threads.emplace_back([&, i] { results[i] = (*jit)->compile(specs[i]); });
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < specs.size(); ++i) {
    ASSERT_TRUE(results[i].ok()) << results[i].status();
    EXPECT_FALSE(results[i]->binary.empty());
    auto key = (*jit)->cacheKey(specs[i]);
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(results[i]->key, *key);
    bool found = false;
    for (const auto& [name, value] : results[i]->metadata.parameters)
      found |= name == "heads_per_program" && value == specs[i].parameters.at("heads_per_program");
    EXPECT_TRUE(found) << "kernel " << i << " lost its parameters";
  }
}
INSTANTIATE_TEST_SUITE_P(CacheAndTarget, JitCompilerThreads,
                         ::testing::Combine(::testing::Bool(), ::testing::Values("host", "sm_90")));

TEST(DecodeTiling, TheMeasuredTableDecidesPerGridAndContext) {
  auto h200 = lookupTarget("sm_90");
  ASSERT_TRUE(h200.ok());
  // Every row is the one chosen at its own corner: none is shadowed by an earlier row.
  for (const DecodeTiling& row : tuningFor(**h200).decodeTilings) {
    auto tiling = chooseDecodeTiling(**h200, row.maxPrograms, row.maxContext, row.maxHeadSize);
    ASSERT_TRUE(tiling.has_value());
    EXPECT_EQ(tiling->maxPrograms, row.maxPrograms);
    EXPECT_EQ(tiling->maxContext, row.maxContext);
  }
  // Choices measured in bench/results/2026-12-01/final, between the corners.
  // Depth 2 where measured in bench/results/2026-12-01/s7-depth2; 2048-token partitions at
  // 128 pairs x 4K in s8-tiling; 32-token tiles at 128 pairs past 4K in s9-swizzle; one
  // 1024-token partition at 65-128 pairs x 1K in s10-merge; the merge through a cluster at
  // batch 1 x 1K/4K and 128 pairs x 1K/4K in s12-cluster-sweep (with two 512-token
  // partitions at 128 pairs x 1K), replaced by one partition of 128-token tiles and 8 warps
  // in s13-batch16.
  struct Expected {
    int64_t pairs, maxModelLen, partitionSize, blockN, prefetchDepth = 1;
    bool cluster = false;
    int64_t warps = 0;
  };
  for (const Expected& e : {Expected{1, 1024, 128, 64, 1, true}, Expected{8, 4096, 512, 64, 1, true},
                            Expected{8, 16384, 512, 64}, Expected{32, 1024, 128, 32, 1, true},
                            Expected{32, 4096, 512, 64},
                            Expected{64, 1024, 512, 64}, Expected{100, 1024, 1024, 128, 1, false, 8},
                            Expected{128, 2048, 1024, 64},
                            Expected{128, 4096, 2048, 64, 1, true},
                            Expected{128, 16384, 4096, 32},
                            Expected{512, 4096, 4096, 32},
                            Expected{300, 16384, 4096, 64}, Expected{2048, 3000, 4096, 64},
                            Expected{2048, 16384, 4096, 32, 2}, Expected{8192, 1024, 1024, 64}}) {
    SCOPED_TRACE(absl::StrCat(e.pairs, " pairs, max_model_len ", e.maxModelLen));
    auto tiling = chooseDecodeTiling(**h200, e.pairs, e.maxModelLen, 128);
    ASSERT_TRUE(tiling.has_value());
    EXPECT_EQ(tiling->partitionSize, e.partitionSize);
    EXPECT_EQ(tiling->blockN, e.blockN);
    EXPECT_EQ(tiling->prefetchDepth, e.prefetchDepth);
    EXPECT_EQ(tiling->clusterMerge, e.cluster);
    EXPECT_EQ(tiling->numWarps, e.warps);
  }
  // Heads 192/256 (s10-heads; batch 1 re-measured in s12-final): 32-token tiles, partitions
  // by grid and head; the cluster merge at batch 1 x 1K only.
  for (const auto& [pairs, len, head, partition] :
       std::vector<std::array<int64_t, 4>>{{8, 1024, 256, 128},    {8, 4096, 192, 256},
                                           {8, 16384, 192, 512},
                                           {128, 4096, 192, 2048}, {128, 16384, 256, 2048},
                                           {512, 1024, 192, 512},  {512, 1024, 256, 512},
                                           {512, 16384, 192, 2048}, {4096, 4096, 256, 4096}}) {
    SCOPED_TRACE(absl::StrCat(pairs, " pairs, max_model_len ", len, ", head ", head));
    auto tiling = chooseDecodeTiling(**h200, pairs, len, head);
    ASSERT_TRUE(tiling.has_value());
    EXPECT_EQ(tiling->partitionSize, partition);
    EXPECT_EQ(tiling->blockN, 32);
    EXPECT_EQ(tiling->clusterMerge, pairs == 8 && len == 1024);
  }
  EXPECT_FALSE(chooseDecodeTiling(**h200, 8, 1024, 320).has_value());  // no row past 256
  auto host = lookupTarget("host");
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE(chooseDecodeTiling(**host, 1, 1, 128).has_value());
}

TEST(DecodeTiling, LargeMergesTakeHeadsPerProgramWithinTheTileBudget) {
  auto h200 = lookupTarget("sm_90");
  ASSERT_TRUE(h200.ok());
  EXPECT_FALSE(mergeHeadsPerProgram(**h200, 2047, 4).has_value());  // small: the default
  EXPECT_EQ(mergeHeadsPerProgram(**h200, 2048, 4), 8);
  EXPECT_EQ(mergeHeadsPerProgram(**h200, 4096, 8), 4);
  EXPECT_EQ(mergeHeadsPerProgram(**h200, 4096, 16), 2);
  EXPECT_EQ(mergeHeadsPerProgram(**h200, 4096, 1), 8);
  auto host = lookupTarget("host");
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE(mergeHeadsPerProgram(**host, 1 << 20, 4).has_value());
}

TEST(DecodeTiling, PagedDecodeTakesTheTableRowWhenTheGridIsKnown) {
  auto device = createCpuDevice();
  auto jit = JitCompiler::create();
  ASSERT_TRUE(jit.ok());
  PagedDecodeConfig config;
  config.gqaRatio = 2;
  auto op = PagedDecode::create(**jit, *device, config);  // host: no table, tuning value
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(op->partitionSize(), 256);
  config.tuning["partition_size"] = "128";  // an explicit choice wins
  auto explicitOp = PagedDecode::create(**jit, *device, config);
  ASSERT_TRUE(explicitOp.ok()) << explicitOp.status();
  EXPECT_EQ(explicitOp->partitionSize(), 128);
}

}  // namespace
}  // namespace tilejit
