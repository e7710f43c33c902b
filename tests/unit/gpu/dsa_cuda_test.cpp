// The DSA decode kernels on the CUDA device: seed 004's candidate-mask set against vLLM's
// shared mask (tuned tile and grid: the narrow width leaves programs idle, the saturated one
// makes every program stride), one launch captured in a graph and replayed with other ends,
// the indexer cache kernels across block sizes 1..256 (every one on request) bitwise against the exact
// quantization, and the mutants each set must catch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "../dsa_cases.h"
#include "runtime/backends/cuda/cuda_driver.h"

namespace tilejit {
namespace {

using ::testing::IsEmpty;
using ::testing::Not;

using DsaOnCuda = testing::DsaSuite<testing::SuiteDevice::kCuda>;

TEST_F(DsaOnCuda, CandidateMaskMatchesSharedKernelWithinEnds) {
  for (std::vector<std::string> config : {std::vector<std::string>{"block_size=8"}, {"block_size=16"},
                                          {"block_size=16", "has_starts=1", "row_repeat=2"},
                                          {"block_size=64", "has_starts=1", "row_repeat=4"}}) {
    auto mask = op("candidate_mask", config);
    ASSERT_NE(mask, nullptr);
    EXPECT_THAT(testing::candidateMaskFailures(*suite_, *mask), IsEmpty()) << config.back();
  }
}

// The grid comes from the width alone, the trip count from `ends` in device memory: a launch
// captured once replays with longer and shorter rows, equal to the shared mask within [0, end)
// and leaving every word past the ends alone.
TEST_F(DsaOnCuda, CandidateMaskGraphReplayTracksChangingEnds) {
  auto mask = op("candidate_mask", {"block_size=16"});
  ASSERT_NE(mask, nullptr);
  const int64_t tile = reference::boundInteger(*mask, "tile", 0);
  const int64_t grid = reference::boundInteger(*mask, "grid_cols", 0);
  const int32_t width = int32_t(2 * grid * tile + 77);
  std::mt19937_64 rng(3);
  reference::CandidateMaskProblem p = testing::maskProblem(*mask, width, {1024, 4096, 8192, 2048}, 64, rng);
  auto buffers = reference::MaskBuffers::create(*suite_->device, p, 1);
  ASSERT_TRUE(buffers.ok()) << buffers.status();
  const std::vector<uint32_t> before = reference::randomWords((*buffers)->storageWords(), rng);
  ASSERT_TRUE((*buffers)->reset(before, p).ok());
  auto stream = cuda::CudaStream::create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  const std::vector<KernelArg> args = (*buffers)->args();
  ASSERT_TRUE(stream->beginCapture().ok());
  ASSERT_TRUE(mask->run(args, stream->handle()).ok());
  auto graph = stream->endCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (std::vector<int32_t> ends : {std::vector<int32_t>{1, 131072, width, 0},
                                    std::vector<int32_t>{width, 1025, 3, 65536}}) {
    p.ends = ends;
    ASSERT_TRUE((*buffers)->reset(before, p).ok());
    ASSERT_TRUE(graph->launch(stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    auto after = (*buffers)->logits();
    ASSERT_TRUE(after.ok()) << after.status();
    const reference::MaskVerdict verdict = reference::judgeCandidateMask(p, 1, before, *after);
    EXPECT_TRUE(verdict.passed) << "ends " << ends[0] << "," << ends[1] << ": " << verdict.detail;
  }
}

TEST_F(DsaOnCuda, CandidateMaskMutantsFail) {
  for (const testing::TemplateEdit& mutant : testing::maskMutants()) {
    auto mask = op("candidate_mask", {"block_size=16"}, &mutant);
    ASSERT_NE(mask, nullptr);
    EXPECT_THAT(testing::candidateMaskFailures(*suite_, *mask), Not(IsEmpty())) << mutant.to;
  }
}

// Block sizes around the edges seed 002 names (the native kernels faulted below 16 and off
// multiples of 16): 1..17, then 24, 48, 80, 100, 127..129, 200, 255, 256; both scale formats
// on a third of them. TJ_DSA_EVERY_BLOCK_SIZE=1 runs every size 1..256 (about 600 compiles).
std::vector<int64_t> indexerBlockSizes() {
  std::vector<int64_t> sizes;
  for (int64_t bs = 1; bs <= 256; ++bs) sizes.push_back(bs);
  if (std::getenv("TJ_DSA_EVERY_BLOCK_SIZE")) return sizes;
  sizes.resize(17);
  for (int64_t bs : {24, 48, 80, 100, 127, 128, 129, 200, 255, 256}) sizes.push_back(bs);
  return sizes;
}

TEST_F(DsaOnCuda, IndexerCacheKernelsAcrossBlockSizes) {
  for (int64_t bs : indexerBlockSizes()) {
    const std::string block = "block_size=" + std::to_string(bs);
    auto gather = op("gather_indexer_k_quant_cache", {block});
    ASSERT_NE(gather, nullptr);
    for (bool ue8m0 : {false, true}) {
      if (ue8m0 && bs % 3 != 1) continue;
      auto quant = op("indexer_k_quant_and_cache",
                      {block, ue8m0 ? "scale_format=ue8m0" : "scale_format=float32"});
      ASSERT_NE(quant, nullptr);
      EXPECT_THAT(testing::indexerFailures(*suite_, *quant, gather.get(), bs, ue8m0, uint64_t(bs)),
                  IsEmpty());
    }
  }
}

// A cache past 2^31 bytes (64-bit addressing): 260000 blocks of 64 tokens (2.2 GB), the
// sequences' blocks shuffled over all of them.
TEST_F(DsaOnCuda, IndexerCacheKernelsPast2To31Bytes) {
  auto quant = op("indexer_k_quant_and_cache", {"block_size=64"});
  auto gather = op("gather_indexer_k_quant_cache", {"block_size=64"});
  ASSERT_NE(quant, nullptr);
  ASSERT_NE(gather, nullptr);
  std::mt19937_64 rng(31);
  const reference::IndexerProblem p =
      reference::makeIndexerProblem(64, false, {300, 65, 1, 130}, rng, 260000);
  ASSERT_GT(p.numBlocks * 64 * reference::kIndexerTokenBytes, int64_t(1) << 31);
  for (auto verdict : {reference::checkQuantAndCache(*quant, *suite_->device, p),
                       reference::checkGather(*gather, *suite_->device, p)}) {
    ASSERT_TRUE(verdict.ok()) << verdict.status();
    EXPECT_TRUE(verdict->passed) << verdict->detail;
  }
}

TEST_F(DsaOnCuda, IndexerMutantsFail) {
  for (const testing::TemplateEdit& mutant : testing::indexerMutants()) {
    auto quant = op("indexer_k_quant_and_cache", {"block_size=48", "scale_format=ue8m0"}, &mutant);
    ASSERT_NE(quant, nullptr);
    EXPECT_THAT(testing::indexerFailures(*suite_, *quant, nullptr, 48, true, 5), Not(IsEmpty()))
        << mutant.to;
  }
}

}  // namespace
}  // namespace tilejit
