// Paged decode on the CUDA device: the whole domain sweep (every GQA ratio 1..16, groups split
// up to 128, every head size and block size, both layouts, both dtypes, every option, sinks,
// fp8 caches) at context lengths around block and partition edges plus 32K, against the
// float64 reference; and graph capture:
// one launch captured, replayed with other sequence lengths and block tables, equal to eager.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../device_suite.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "tools/harness/host_tensor.h"

#include <cmath>
#include <numeric>
#include <random>

namespace tilejit {
namespace {

using PagedDecodeOnCuda = testing::DeviceSuiteTest<testing::DecodeCase, testing::SuiteDevice::kCuda>;

// Whether the device's target runs thread-block clusters (cluster_size > 1: sm_90 and later).
bool hasClusters(const Device& device) {
  auto target = lookupTarget(device.target());
  return target.ok() && (*target)->maxClusterPrograms > 1;
}

TEST_P(PagedDecodeOnCuda, MatchesReference) {
  const testing::DecodeCase& c = GetParam();
  if (c.config.tuning.count("cluster_size") && !hasClusters(*suite_->device))
    GTEST_SKIP() << suite_->device->name() << " has no thread-block clusters";
  // 32K context only where the cache stays small enough for a quick host reference.
  bool longContext = c.name == "ratio4" || c.name == "block16_shuffled" || c.name == "head256" ||
                     c.name == "merge_in_kernel4";  // (cluster cases: their workspace's lengths)
  testing::expectDecodeCaseMatches(*suite_, c, longContext, {3, 4});
}

INSTANTIATE_TEST_SUITE_P(Domain, PagedDecodeOnCuda, ::testing::ValuesIn(testing::decodeCases(true, /*clusters=*/true)),
                         [](const auto& info) { return info.param.name; });

// Static grid + graph capture: the grid depends on num_seqs, num_kv_heads and max_partitions
// only, so a launch captured once replays correctly with other lengths and tables (with the
// merge in the split-K kernel too: its arrival counters start every replay at 0).
void expectGraphReplayEqualsEager(testing::SuiteResources* suite_, PagedDecodeConfig config) {
  // Groups past one program's rows on one kv head (MQA), others on two.
  const int64_t hkv = config.gqaRatio > 16 ? 1 : 2, hq = hkv * config.gqaRatio;
  const int64_t seqs = 3, dim = 128, bs = 16, maxLen = 4096;
  config.maxModelLen = maxLen;
  auto op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  const int64_t blocksPerSeq = maxLen / bs, numBlocks = seqs * blocksPerSeq;
  const int64_t partitions = op->maxPartitions(maxLen);
  std::mt19937_64 rng(5);
  const DType cacheType = config.kvCacheDtype == "fp8_e4m3"   ? DType::kF8E4M3FN
                          : config.kvCacheDtype == "fp8_e5m2" ? DType::kF8E5M2
                                                              : DType::kBF16;
  HostTensor query(DType::kBF16, {seqs, hq, dim}), kc(cacheType, {numBlocks, bs, hkv, dim}),
      vc(cacheType, {numBlocks, bs, hkv, dim}), table(DType::kI32, {seqs, blocksPerSeq}),
      lens(DType::kI32, {seqs}), slopes(DType::kF32, {hq}), out(DType::kBF16, {seqs, hq, dim}),
      pout(DType::kF32, {seqs, partitions, hq, dim}), plse(DType::kF32, {seqs, partitions, hq}),
      arrivals(DType::kI32, {seqs, hkv});
  query.fillNormal(rng);
  kc.fillNormal(rng);
  vc.fillNormal(rng);
  slopes.fillNormal(rng);
  auto upload = [&](const HostTensor& t) { return DeviceTensor::upload(*suite_->device, t).value(); };
  DeviceTensor dq = upload(query), dk = upload(kc), dv = upload(vc), dt = upload(table),
               dl = upload(lens), ds = upload(slopes), dout = upload(out), dpo = upload(pout),
               dpl = upload(plse), darr = upload(arrivals);
  PagedDecodeArgs args{dout.arg(), dq.arg(), dk.arg(), dv.arg(), dt.arg(), dl.arg(), ds.arg(),
                       dpo.arg(), dpl.arg(), darr.arg()};
  args.scale = 0.088f;
  DeviceTensor dsinks = upload(slopes);  // normal draws: sinks around the logits' range
  if (config.sinks) args.sinks = dsinks.arg();
  HostTensor scales(DType::kF32, {hkv});  // per kv head (the codes: normal draws, |x| < 448)
  for (int64_t h = 0; h < hkv; ++h) scales.set(h, 0.02 * double(h + 1));
  DeviceTensor dscales = upload(scales);
  if (config.kvCacheDtype != "auto") args.kScales = args.vScales = dscales.arg();
  auto randomize = [&](std::vector<int64_t> lengths) {
    std::vector<int64_t> order(static_cast<size_t>(numBlocks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t i = 0; i < table.numel(); ++i) table.set(i, double(order[size_t(i)]));
    for (int64_t s = 0; s < seqs; ++s) lens.set(s, double(lengths[size_t(s)]));
    ASSERT_TRUE(dt.overwrite(table).ok());
    ASSERT_TRUE(dl.overwrite(lens).ok());
  };
  auto stream = cuda::CudaStream::create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  randomize({1, 1, 1});  // captured at length 1, as vLLM captures
  ASSERT_TRUE(stream->beginCapture().ok());
  ASSERT_TRUE((*op)(args, stream->handle()).ok());
  auto graph = stream->endCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (std::vector<int64_t> lengths : {std::vector<int64_t>{4096, 17, 1}, {1000, 4095, 513},
                                       std::vector<int64_t>{1, 1, 1}, {2048, 0, 3000}}) {
    randomize(lengths);
    out.fillNaN();
    ASSERT_TRUE(dout.overwrite(out).ok());
    ASSERT_TRUE(graph->launch(stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    HostTensor replayed;
    ASSERT_TRUE(dout.download(replayed).ok());
    ASSERT_TRUE(dout.overwrite(out).ok());
    ASSERT_TRUE((*op)(args, stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    HostTensor eager;
    ASSERT_TRUE(dout.download(eager).ok());
    EXPECT_EQ(replayed.bytes, eager.bytes) << "lengths " << lengths[0] << "," << lengths[1];
    int64_t nans = 0;
    for (int64_t i = 0; i < replayed.numel(); ++i) nans += std::isnan(replayed.get(i));
    EXPECT_EQ(nans, 0);
    HostTensor counters;
    ASSERT_TRUE(darr.download(counters).ok());
    for (int64_t i = 0; i < counters.numel(); ++i) EXPECT_EQ(counters.get(i), 0) << "counter " << i;
  }
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithChangedLengthsEqualsEager) {
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  expectGraphReplayEqualsEager(suite_, config);
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithSinksEqualsEager) {
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.sinks = true;
  config.tuning = {{"partition_size", "512"}};
  expectGraphReplayEqualsEager(suite_, config);
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithASplitGroupEqualsEager) {
  PagedDecodeConfig config;
  config.gqaRatio = 71;
  config.sinks = true;
  expectGraphReplayEqualsEager(suite_, config);
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithAnFp8CacheEqualsEager) {
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.kvCacheDtype = "fp8_e4m3";
  config.kvScale = "per_head";
  config.tuning = {{"partition_size", "512"}};
  expectGraphReplayEqualsEager(suite_, config);
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithMergeInKernelEqualsEager) {
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.tuning = {{"partition_size", "512"}, {"merge_in_kernel", "1"}};
  expectGraphReplayEqualsEager(suite_, config);
}

TEST_F(PagedDecodeOnCuda, GraphReplayWithClusterMergeEqualsEager) {
  if (!hasClusters(*suite_->device)) GTEST_SKIP() << suite_->device->name() << " has no thread-block clusters";
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.tuning = {{"partition_size", "512"}, {"cluster_size", "8"}};
  expectGraphReplayEqualsEager(suite_, config);
}

// A cluster of 2 merges by push (the first program to finish hands its partial to the last):
// its count of arrivals starts at 0 in every replay.
TEST_F(PagedDecodeOnCuda, GraphReplayWithClusterOfTwoEqualsEager) {
  if (!hasClusters(*suite_->device)) GTEST_SKIP() << suite_->device->name() << " has no thread-block clusters";
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.tuning = {{"partition_size", "2048"}, {"block_n", "64"}, {"cluster_size", "2"}};
  expectGraphReplayEqualsEager(suite_, config);
}

// The measured table's cluster rows (batch 1 x 1K: 128-token partitions, a cluster of 8): the
// cluster follows the partition size the caller's tuning leaves, and a caller's choice of merge
// wins; no merge kernel with a cluster.
TEST_F(PagedDecodeOnCuda, TableClusterFollowsTheCallersTuning) {
  if (suite_->device->target() != "sm_90") GTEST_SKIP() << "the table's cluster rows are sm_90's";
  auto params = [](const PagedDecode& op) {
    std::map<std::string, std::string> bound;
    for (const auto& [name, value] : op.decodeKernel().metadata().parameters) bound[name] = value;
    return bound;
  };
  PagedDecodeConfig config;
  config.gqaRatio = 8;
  config.numSeqs = 1;
  config.numKvHeads = 8;
  config.maxModelLen = 1024;
  auto op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(params(*op)["cluster_size"], "8");
  EXPECT_EQ(op->reduceKernel(), nullptr);
  config.tuning = {{"partition_size", "256"}};
  op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(params(*op)["cluster_size"], "4");
  config.tuning = {{"merge_in_kernel", "1"}};
  op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(params(*op)["cluster_size"], "1");
  config.tuning = {{"partition_size", "2048"}};  // one partition: nothing to merge
  op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ(params(*op)["cluster_size"], "1");
}

// A cluster holds every partition of a sequence: a max_model_len that makes another count,
// or a workspace with another count, is refused by name.
TEST_F(PagedDecodeOnCuda, ClusterMergeRefusesAnotherPartitionCount) {
  if (!hasClusters(*suite_->device)) GTEST_SKIP() << suite_->device->name() << " has no thread-block clusters";
  PagedDecodeConfig config;
  config.gqaRatio = 4;
  config.maxModelLen = 1000;
  config.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"cluster_size", "8"}};
  auto op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_FALSE(op.ok());
  EXPECT_THAT(std::string(op.status().message()),
              ::testing::HasSubstr("max_model_len 1000 gives 16"));
  config.maxModelLen = 512;
  op = PagedDecode::create(*suite_->jit, *suite_->device, config);
  ASSERT_TRUE(op.ok()) << op.status();
  PagedDecodeArgs args;
  args.partialOut.rank = 4;
  args.partialOut.shape[1] = 4;
  absl::Status launched = (*op)(args);
  EXPECT_THAT(std::string(launched.message()), ::testing::HasSubstr("partial_out must have 8 partitions"));
}

}  // namespace
}  // namespace tilejit
