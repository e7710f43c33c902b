// The DSA decode kernels on the CPU backend: the candidate mask against vLLM's shared kernel
// (seed 004's set), the indexer cache kernels at block sizes 1 to 256 against the exact
// quantization, bad parameters named, and the mutants each set must catch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../dsa_cases.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

using DsaOnCpu = testing::DsaSuite<testing::SuiteDevice::kCpu>;

TEST_F(DsaOnCpu, CandidateMaskMatchesSharedKernelWithinEnds) {
  for (std::vector<std::string> config :
       {std::vector<std::string>{"block_size=8"}, {"block_size=16"},
        {"block_size=8", "tile=128", "grid_cols=3"}, {"block_size=16", "tile=512", "grid_cols=1"}}) {
    auto mask = op("candidate_mask", config);
    ASSERT_NE(mask, nullptr);
    EXPECT_THAT(testing::candidateMaskFailures(*suite_, *mask), IsEmpty()) << config.back();
  }
}

TEST_F(DsaOnCpu, CandidateMaskWithStartsAndRowRepeat) {
  for (const char* repeat : {"row_repeat=2", "row_repeat=3"}) {
    auto mask = op("candidate_mask", {"block_size=16", "has_starts=1", repeat});
    ASSERT_NE(mask, nullptr);
    EXPECT_THAT(testing::candidateMaskFailures(*suite_, *mask), IsEmpty()) << repeat;
  }
}

TEST_F(DsaOnCpu, CandidateMaskBadBlockSizeIsNamed) {
  auto created = testing::createDsaOp(*suite_, "candidate_mask", {"block_size=0"});
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(std::string(created.status().message()), HasSubstr("block_size"));
}

TEST_F(DsaOnCpu, CandidateMaskMutantsFail) {
  for (const testing::TemplateEdit& mutant : testing::maskMutants()) {
    auto mask = op("candidate_mask", {"block_size=8"}, &mutant);
    ASSERT_NE(mask, nullptr);
    EXPECT_THAT(testing::candidateMaskFailures(*suite_, *mask), Not(IsEmpty())) << mutant.to;
  }
}

// Block sizes 1 to 256: 1, non-multiples of 16 (8, 24, 48, 80, 100, 255) and the edges.
TEST_F(DsaOnCpu, IndexerCacheKernelsAtEveryKindOfBlockSize) {
  for (int64_t bs : {1, 2, 3, 7, 8, 16, 24, 48, 64, 80, 100, 128, 255, 256})
    for (bool ue8m0 : {false, true}) {
      const std::string block = "block_size=" + std::to_string(bs);
      auto quant = op("indexer_k_quant_and_cache",
                      {block, ue8m0 ? "scale_format=ue8m0" : "scale_format=float32"});
      auto gather = op("gather_indexer_k_quant_cache", {block});
      ASSERT_NE(quant, nullptr);
      ASSERT_NE(gather, nullptr);
      EXPECT_THAT(testing::indexerFailures(*suite_, *quant, gather.get(), bs, ue8m0, uint64_t(bs)),
                  IsEmpty());
    }
}

TEST_F(DsaOnCpu, IndexerBadBlockSizeIsNamed) {
  for (const char* name : {"indexer_k_quant_and_cache", "gather_indexer_k_quant_cache"}) {
    auto created = testing::createDsaOp(*suite_, name, {"block_size=257"});
    ASSERT_FALSE(created.ok()) << name;
    EXPECT_THAT(std::string(created.status().message()), HasSubstr("block_size")) << name;
  }
}

// A cache of another block size, or two views of different caches, is an error naming the
// argument, not a kernel writing at the wrong places.
TEST_F(DsaOnCpu, IndexerCacheViewsOfAnotherLayoutAreNamed) {
  auto quant = op("indexer_k_quant_and_cache", {"block_size=8"});
  ASSERT_NE(quant, nullptr);
  std::mt19937_64 rng(1);
  reference::IndexerProblem p = reference::makeIndexerProblem(8, false, {5}, rng);
  reference::IndexerProblem wrong = p;
  wrong.blockSize = 16;  // the same bytes read as a cache of 16-token blocks
  wrong.numBlocks = p.numBlocks / 2;
  HostTensor cache(DType::kU8, {p.numBlocks * 8 * reference::kIndexerTokenBytes}), other = cache;
  HostTensor slots(DType::kI64, {int64_t(p.slots.size())});
  auto k = DeviceTensor::upload(*suite_->device, p.k);
  auto c = DeviceTensor::upload(*suite_->device, cache), d = DeviceTensor::upload(*suite_->device, other);
  auto s = DeviceTensor::upload(*suite_->device, slots);
  ASSERT_TRUE(k.ok() && c.ok() && d.ok() && s.ok());
  auto run = [&](const TensorArg& values, const TensorArg& scales) {
    return std::string(quant->run({k->arg(), values, scales, s->arg()}).message());
  };
  EXPECT_THAT(run(reference::cacheViewArg(c->data(), wrong, DType::kF8E4M3FN),
                  reference::cacheViewArg(c->data(), p, DType::kF32)),
              HasSubstr("argument 'cache_values' has 2112 bytes per block, but block_size 8 needs 1056"));
  EXPECT_THAT(run(reference::cacheViewArg(c->data(), p, DType::kF8E4M3FN),
                  reference::cacheViewArg(c->data(), wrong, DType::kF32)),
              HasSubstr("argument 'cache_scales' has 528 words per block"));
  EXPECT_THAT(run(reference::cacheViewArg(c->data(), p, DType::kF8E4M3FN),
                  reference::cacheViewArg(d->data(), p, DType::kF32)),
              HasSubstr("must view the same cache"));
}

TEST_F(DsaOnCpu, IndexerMutantsFail) {
  for (const testing::TemplateEdit& mutant : testing::indexerMutants()) {
    auto quant = op("indexer_k_quant_and_cache", {"block_size=24", "scale_format=ue8m0"}, &mutant);
    ASSERT_NE(quant, nullptr);
    EXPECT_THAT(testing::indexerFailures(*suite_, *quant, nullptr, 24, true, 5), Not(IsEmpty()))
        << mutant.to;
  }
  const testing::TemplateEdit mutant = testing::gatherMutant();
  auto quant = op("indexer_k_quant_and_cache", {"block_size=8"});
  auto gather = op("gather_indexer_k_quant_cache", {"block_size=8"}, &mutant);
  ASSERT_NE(gather, nullptr);
  EXPECT_THAT(testing::indexerFailures(*suite_, *quant, gather.get(), 8, false, 6), Not(IsEmpty()));
}

}  // namespace
}  // namespace tilejit
