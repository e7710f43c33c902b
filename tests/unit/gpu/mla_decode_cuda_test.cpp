// MLA decode on the CUDA device against the float64 reference (NaN-poisoned unused blocks and
// tails, shuffled tables, poisoned outputs): block 16 and 64, 16 to 128 q heads, lengths at
// block, tile and partition edges, contexts to 32K, the target's tuning and 32 q rows, 2 and 4
// query tokens a sequence; and a
// cache past 2^31 elements (every latent read sits past element 2^31: 64-bit addressing); and
// graph capture: the op captured once at length 1, replayed with other lengths and tables,
// equal to eager.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "../device_suite.h"
#include "../mla_cases.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "tools/harness/host_tensor.h"

namespace tilejit {
namespace {

struct MlaCudaCase {
  std::string name;
  std::vector<std::string> config;
  MlaProblem problem;
};

std::vector<MlaCudaCase> cases() {
  using testing::mlaProblem;
  const std::vector<int64_t> edges = {0, 1, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 2049};
  std::vector<MlaCudaCase> all;
  for (int64_t block : {16, 64})
    for (int64_t heads : {16, 32, 64, 128}) {
      const std::string name = "Block" + std::to_string(block) + "Heads" + std::to_string(heads);
      all.push_back({name, {"block_size=" + std::to_string(block)}, mlaProblem(heads, edges)});
    }
  all.push_back({"Block64Heads16Context32K", {"block_size=64"}, mlaProblem(16, {32768, 20000, 1})});
  all.push_back({"Block16Heads128Context4K", {"block_size=16"}, mlaProblem(128, {4096, 4000})});
  all.push_back({"Block64Heads128Rows32", {"block_size=64", "q_rows=32"},
                 mlaProblem(128, {1, 1024, 3000})});
  all.push_back({"Block1Heads16", {"block_size=1"}, mlaProblem(16, {1, 100, 1500})});
  all.push_back({"Block256Heads16", {"block_size=256"}, mlaProblem(16, {1, 255, 256, 2000})});
  // MTP / speculative verify: 2 and 4 new tokens a sequence, causal among themselves.
  all.push_back({"QLen2Block64Heads128", {"block_size=64", "q_len=2"},
                 mlaProblem(128, {2, 1025, 4096}, 0, 2)});
  all.push_back({"QLen4Block16Heads16", {"block_size=16", "q_len=4"},
                 mlaProblem(16, {4, 1027, 32768}, 0, 4)});
  all.push_back({"OnePartition", {"block_size=64", "partition_size=4096"},
                 mlaProblem(16, {0, 1, 4096})});
  return all;
}

using MlaDecodeOnCuda = testing::DeviceSuiteTest<MlaCudaCase, testing::SuiteDevice::kCuda>;

TEST_P(MlaDecodeOnCuda, MatchesReference) {
  auto check = testing::checkMlaCase(*suite_->jit, *suite_->device, GetParam().config,
                                     GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, MlaDecodeOnCuda, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// 2^31 / (64 x 576) = 58254.2 blocks below the sequences' (4.3 GB of bf16 NaN): every latent
// read and every table-derived offset is past 2^31 elements. A kernel with 32-bit offsets reads
// the wrong (NaN) blocks or faults.
using MlaDecodePast2To31 = testing::DeviceSuiteTest<int, testing::SuiteDevice::kCuda>;

TEST_P(MlaDecodePast2To31, MatchesReference) {
  MlaProblem problem = testing::mlaProblem(16, {1, 4096, 2100});
  problem.padBlocks = (int64_t(1) << 31) / (64 * 576) + 1;
  auto check = testing::checkMlaCase(*suite_->jit, *suite_->device, {"block_size=64"}, problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Cache, MlaDecodePast2To31, ::testing::Values(0));

// The grid comes from shapes only (tokens, heads, workspace partitions): one capture replays
// correctly for any lengths and tables, bit for bit equal to eager launches.
using MlaDecodeGraph = testing::DeviceSuiteTest<int, testing::SuiteDevice::kCuda>;

TEST_P(MlaDecodeGraph, ReplayWithChangedLengthsEqualsEager) {
  const int64_t seqs = 3, heads = 32, bs = 64, maxLen = 4096, blocksPerSeq = maxLen / bs;
  const int64_t numBlocks = seqs * blocksPerSeq;
  const OpDefinition* definition = OpRegistry::shipped().find("mla_decode");
  ASSERT_NE(definition, nullptr);
  auto config = definition->schema.parse({"block_size=64"});
  ASSERT_TRUE(config.ok()) << config.status();
  auto op = definition->create(*suite_->jit, *suite_->device, *config);
  ASSERT_TRUE(op.ok()) << op.status();
  const ProblemSizes sizes = {
      {"num_tokens", seqs}, {"num_q_heads", heads}, {"max_model_len", maxLen}};
  auto outShape = (*op)->workspaceShape("partial_out", sizes);
  auto lseShape = (*op)->workspaceShape("partial_lse", sizes);
  ASSERT_TRUE(outShape.ok() && lseShape.ok());
  std::mt19937_64 rng(11);
  HostTensor query(DType::kBF16, {seqs, heads, 576}), cache(DType::kBF16, {numBlocks, bs, 1, 576}),
      table(DType::kI32, {seqs, blocksPerSeq}), lens(DType::kI32, {seqs}),
      out(DType::kBF16, {seqs, heads, 512}), pout(DType::kF32, outShape->shape),
      plse(DType::kF32, lseShape->shape);
  query.fillNormal(rng);
  cache.fillNormal(rng);
  out.fillNaN();
  auto upload = [&](const HostTensor& t) {
    return DeviceTensor::upload(*suite_->device, t).value();
  };
  DeviceTensor dq = upload(query), dc = upload(cache), dt = upload(table), dl = upload(lens),
               dout = upload(out), dpo = upload(pout), dpl = upload(plse);
  const std::map<std::string, KernelArg> byName = {
      {"output", dout.arg()},     {"partial_out", dpo.arg()}, {"partial_lse", dpl.arg()},
      {"query", dq.arg()},        {"latent_cache", dc.arg()}, {"block_tables", dt.arg()},
      {"seq_lens", dl.arg()},     {"scale", ScalarArg::f32(0.0722f)}};
  absl::StatusOr<std::vector<KernelArg>> ordered = (*op)->argumentsInOrder(byName);
  ASSERT_TRUE(ordered.ok()) << ordered.status();
  std::vector<KernelArg> args = *std::move(ordered);
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
  randomize({1, 1, 1});
  ASSERT_TRUE(stream->beginCapture().ok());
  ASSERT_TRUE((*op)->run(args, stream->handle()).ok());
  auto graph = stream->endCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (std::vector<int64_t> lengths : {std::vector<int64_t>{4096, 17, 1}, {1000, 4095, 1025},
                                       std::vector<int64_t>{2048, 0, 3000}}) {
    randomize(lengths);
    ASSERT_TRUE(dout.overwrite(out).ok());
    ASSERT_TRUE(graph->launch(stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    HostTensor replayed, eager;
    ASSERT_TRUE(dout.download(replayed).ok());
    ASSERT_TRUE(dout.overwrite(out).ok());
    ASSERT_TRUE((*op)->run(args, stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    ASSERT_TRUE(dout.download(eager).ok());
    EXPECT_EQ(replayed.bytes, eager.bytes) << "lengths " << lengths[0] << "," << lengths[1];
    int64_t nans = 0;
    for (int64_t i = 0; i < replayed.numel(); ++i) nans += std::isnan(replayed.get(i));
    EXPECT_EQ(nans, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Capture, MlaDecodeGraph, ::testing::Values(0));

}  // namespace
}  // namespace tilejit
