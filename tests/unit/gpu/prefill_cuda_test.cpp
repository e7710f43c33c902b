// Prefill and extend on the CUDA device against the float64 reference (NaN tokens past the last
// sequence, NaN in unused cache blocks and past each end, shuffled tables, poisoned output and
// LSE): the sm_90 tuning (block_m 128, 8 warps, K/V tiles in shared memory) at every head size
// and MLA's 192/128, GQA 1..16, lengths at tile edges, an 8K causal sequence, both causal
// alignments, window, soft cap, ALiBi, f16; extend with 1..2K new tokens over contexts to 32K,
// both cache layouts. And graph capture: each op captured once, replayed with other lengths
// (and for extend other tables), equal to eager launches bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "../device_suite.h"
#include "../prefill_cases.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "tools/harness/host_tensor.h"

namespace tilejit {
namespace {

using testing::prefillProblem;

struct PrefillCudaCase {
  std::string name;
  std::vector<std::string> config;
  PrefillProblem problem;
};

std::vector<PrefillCudaCase> prefillCases() {
  const std::vector<int64_t> edges = {0, 1, 63, 64, 65, 127, 128, 129, 1000};
  std::vector<PrefillCudaCase> all = {
      {"CausalEdges", {}, prefillProblem(4, edges)},
      {"NonCausalEdges", {"causal=0"}, prefillProblem(4, edges)},
      {"CausalLongerKeys", {}, prefillProblem(4, {1, 129, 700}, {2000, 129, 1500})},
      {"CausalShorterKeys", {}, prefillProblem(4, {300, 129}, {100, 0})},
      {"Causal8K", {}, prefillProblem(1, {8192})},
      {"Gqa4", {"gqa_ratio=4"}, prefillProblem(8, {513, 64})},
      {"Gqa8", {"gqa_ratio=8"}, prefillProblem(8, {1, 300})},
      {"Gqa16", {"gqa_ratio=16"}, prefillProblem(16, {200, 65})},
      {"Window", {}, prefillProblem(4, {1000, 300}, {1000, 900}, 256)},
      {"SoftCapAlibi", {"soft_cap=1", "alibi=1"}, prefillProblem(4, {400, 129})},
      {"F16", {"dtype=f16"}, prefillProblem(4, {700, 64})},
      {"MlaHeads192V128", {"head_size=192", "v_head_size=128"}, prefillProblem(4, {700, 129})},
  };
  for (const char* d : {"64", "80", "96", "192", "256"})
    all.push_back({std::string("Head") + d,
                   {std::string("head_size=") + d, std::string("v_head_size=") + d},
                   prefillProblem(4, {1, 129, 600})});
  return all;
}

using PrefillOnCuda = testing::DeviceSuiteTest<PrefillCudaCase, testing::SuiteDevice::kCuda>;

TEST_P(PrefillOnCuda, MatchesReference) {
  auto check = testing::checkPrefillCase(*suite_->jit, *suite_->device, GetParam().config,
                                         GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, PrefillOnCuda, ::testing::ValuesIn(prefillCases()),
                         [](const auto& info) { return info.param.name; });

struct ExtendCudaCase {
  std::string name;
  std::vector<std::string> config;
  ExtendProblem problem;
};

using testing::extendProblem;

std::vector<ExtendCudaCase> extendCases() {
  return {
      {"Verify", {}, extendProblem(4, {1, 2, 4, 8}, {4095, 100, 16, 0})},
      {"Chunks", {}, extendProblem(4, {128, 129, 512}, {4096, 1000, 31})},
      {"Context32K", {"gqa_ratio=4"}, extendProblem(4, {16, 64}, {32768, 20000})},
      {"Chunk2K", {"gqa_ratio=2"}, extendProblem(2, {2048}, {2048})},
      {"Block64Shuffled", {"block_size=64", "kv_layout=shuffled"},
       extendProblem(4, {65, 3}, {1023, 64})},
      {"Block1", {"block_size=1"}, extendProblem(4, {17, 1}, {300, 5})},
      {"Head256", {"head_size=256", "v_head_size=256"}, extendProblem(2, {130, 1}, {600, 64})},
      {"MlaHeads192V128", {"head_size=192", "v_head_size=128"}, extendProblem(4, {130}, {600})},
  };
}

using ExtendOnCuda = testing::DeviceSuiteTest<ExtendCudaCase, testing::SuiteDevice::kCuda>;

TEST_P(ExtendOnCuda, MatchesReference) {
  auto check = testing::checkExtendCase(*suite_->jit, *suite_->device, GetParam().config,
                                        GetParam().problem);
  ASSERT_TRUE(check.ok()) << check.status();
  EXPECT_TRUE(check->passed) << check->detail;
}

INSTANTIATE_TEST_SUITE_P(Domain, ExtendOnCuda, ::testing::ValuesIn(extendCases()),
                         [](const auto& info) { return info.param.name; });

// Captures `op` once (after `change(0)`), then for each later change replays the graph and
// runs eagerly from the same poisoned output: the two must be equal bit for bit, NaN-free
// over the rows `written` says the change's sequences hold.
void expectReplayEqualsEager(const Op& op, const std::vector<KernelArg>& args,
                             DeviceTensor& output, const HostTensor& poison, int changes,
                             const std::function<int64_t(int)>& change) {
  auto stream = cuda::CudaStream::create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  change(0);
  ASSERT_TRUE(stream->beginCapture().ok());
  ASSERT_TRUE(op.run(args, stream->handle()).ok());
  auto graph = stream->endCapture();
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (int i = 1; i <= changes; ++i) {
    const int64_t writtenElements = change(i);
    ASSERT_TRUE(output.overwrite(poison).ok());
    ASSERT_TRUE(graph->launch(stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    HostTensor replayed, eager;
    ASSERT_TRUE(output.download(replayed).ok());
    ASSERT_TRUE(output.overwrite(poison).ok());
    ASSERT_TRUE(op.run(args, stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    ASSERT_TRUE(output.download(eager).ok());
    EXPECT_EQ(replayed.bytes, eager.bytes) << "change " << i;
    int64_t nans = 0;
    for (int64_t e = 0; e < writtenElements; ++e) nans += std::isnan(replayed.get(e));
    EXPECT_EQ(nans, 0) << "change " << i;
  }
}

using AttentionGraph = testing::DeviceSuiteTest<int, testing::SuiteDevice::kCuda>;

// Prefill: 4 sequences over 4096 tokens, captured with equal lengths, replayed with others.
TEST_P(AttentionGraph, PrefillReplayWithChangedLengthsEqualsEager) {
  const int64_t tokens = 4096, heads = 8, d = 128;
  auto op = testing::makeOp(*suite_->jit, *suite_->device, "prefill", {"gqa_ratio=2"}, "");
  ASSERT_TRUE(op.ok()) << op.status();
  std::mt19937_64 rng(5);
  HostTensor q(DType::kBF16, {tokens, heads, d}), k(DType::kBF16, {tokens, heads / 2, d}),
      out(DType::kBF16, {tokens, heads, d}), lse(DType::kF32, {heads, tokens}),
      cu(DType::kI32, {5}), slopes(DType::kF32, {heads});
  q.fillNormal(rng);
  k.fillNormal(rng);
  out.fillNaN();
  auto upload = [&](const HostTensor& t) { return DeviceTensor::upload(*suite_->device, t).value(); };
  DeviceTensor dq = upload(q), dk = upload(k), dv = upload(k), dout = upload(out),
               dlse = upload(lse), dcu = upload(cu), ds = upload(slopes);
  auto args = (*op)->argumentsInOrder(
      {{"output", headsMajor(dout.arg())}, {"lse", dlse.arg()}, {"query", headsMajor(dq.arg())},
       {"key", headsMajor(dk.arg())}, {"value", headsMajor(dv.arg())},
       {"cu_seqlens_q", dcu.arg()}, {"cu_seqlens_k", dcu.arg()}, {"alibi_slopes", ds.arg()},
       {"scale", ScalarArg::f32(0.088f)}, {"soft_cap_value", ScalarArg::f32(0)},
       {"sliding_window", ScalarArg::i64(0)}});
  ASSERT_TRUE(args.ok()) << args.status();
  const std::vector<std::vector<int64_t>> starts = {
      {0, 1024, 2048, 3072, 4096}, {0, 1, 130, 4000, 4096}, {0, 0, 4096, 4096, 4096},
      {0, 2000, 2001, 2001, 3000}};
  expectReplayEqualsEager(**op, *args, dout, out, 3, [&](int i) {
    for (int s = 0; s < 5; ++s) cu.set(s, double(starts[size_t(i)][size_t(s)]));
    EXPECT_TRUE(dcu.overwrite(cu).ok());
    return starts[size_t(i)][4] * heads * d;
  });
}

// Extend: 3 sequences of up to 256 new tokens over 4K contexts, captured at 1 new token each,
// replayed with other chunks, contexts and tables.
TEST_P(AttentionGraph, ExtendReplayWithChangedLengthsEqualsEager) {
  const int64_t seqs = 3, heads = 8, d = 128, bs = 16, maxLen = 4096 + 256;
  const int64_t blocksPerSeq = maxLen / bs, numBlocks = seqs * blocksPerSeq, tokens = 3 * 256;
  auto op = testing::makeOp(*suite_->jit, *suite_->device, "extend", {"gqa_ratio=4"}, "");
  ASSERT_TRUE(op.ok()) << op.status();
  std::mt19937_64 rng(7);
  HostTensor q(DType::kBF16, {tokens, heads, d}), cache(DType::kBF16, {numBlocks, bs, 2, d}),
      table(DType::kI32, {seqs, blocksPerSeq}), lens(DType::kI32, {seqs}),
      cu(DType::kI32, {seqs + 1}), out(DType::kBF16, {tokens, heads, d}),
      lse(DType::kF32, {heads, tokens}), slopes(DType::kF32, {heads});
  q.fillNormal(rng);
  cache.fillNormal(rng);
  out.fillNaN();
  auto upload = [&](const HostTensor& t) { return DeviceTensor::upload(*suite_->device, t).value(); };
  DeviceTensor dq = upload(q), dc = upload(cache), dt = upload(table), dl = upload(lens),
               dcu = upload(cu), dout = upload(out), dlse = upload(lse), ds = upload(slopes);
  auto args = (*op)->argumentsInOrder(
      {{"output", headsMajor(dout.arg())}, {"lse", dlse.arg()}, {"query", headsMajor(dq.arg())},
       {"key_cache", dc.arg()}, {"value_cache", dc.arg()}, {"block_tables", dt.arg()},
       {"seq_lens", dl.arg()}, {"cu_seqlens_q", dcu.arg()}, {"alibi_slopes", ds.arg()},
       {"scale", ScalarArg::f32(0.088f)}, {"soft_cap_value", ScalarArg::f32(0)},
       {"sliding_window", ScalarArg::i64(0)}});
  ASSERT_TRUE(args.ok()) << args.status();
  const std::vector<std::vector<int64_t>> news = {{1, 1, 1}, {256, 2, 129}, {8, 256, 0}, {1, 64, 256}};
  const std::vector<std::vector<int64_t>> contexts = {{0, 0, 0}, {4096, 17, 1000}, {3000, 0, 5}, {1, 4095, 2048}};
  expectReplayEqualsEager(**op, *args, dout, out, 3, [&](int i) {
    std::vector<int64_t> order(static_cast<size_t>(numBlocks));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    for (int64_t e = 0; e < table.numel(); ++e) table.set(e, double(order[size_t(e)]));
    int64_t start = 0;
    cu.set(0, 0);
    for (int64_t s = 0; s < seqs; ++s) {
      lens.set(s, double(news[size_t(i)][size_t(s)] + contexts[size_t(i)][size_t(s)]));
      start += news[size_t(i)][size_t(s)];
      cu.set(s + 1, double(start));
    }
    EXPECT_TRUE(dt.overwrite(table).ok());
    EXPECT_TRUE(dl.overwrite(lens).ok());
    EXPECT_TRUE(dcu.overwrite(cu).ok());
    return start * heads * d;
  });
}

INSTANTIATE_TEST_SUITE_P(Capture, AttentionGraph, ::testing::Values(0));

}  // namespace
}  // namespace tilejit
