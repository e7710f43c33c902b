#include "compiler/ops/extend/reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "support/status.h"
#include "tools/harness/op_reference.h"

namespace tilejit {

absl::StatusOr<AttentionCheck> checkExtendOp(Device& device, const Op& op,
                                             const ExtendProblem& problem) {
  const OpConfig& config = op.config();
  if (problem.contextLens.size() != problem.qLens.size())
    return absl::InvalidArgumentError("the problem needs one context length per q length");
  const int64_t seqs = int64_t(problem.qLens.size()), bs = config.integer("block_size");
  AttentionCase c;
  std::vector<int64_t> seqLens;
  c.qStarts = {0};
  for (int64_t s = 0; s < seqs; ++s) {
    seqLens.push_back(problem.contextLens[size_t(s)] + problem.qLens[size_t(s)]);
    c.qStarts.push_back(c.qStarts.back() + problem.qLens[size_t(s)]);
  }
  std::mt19937_64 rng(problem.seed);
  AttentionDraw draw{problem.numQHeads, c.qStarts.back() + problem.paddingTokens,
                     problem.paddingTokens, problem.queryStddev, problem.softCapValue,
                     problem.window};
  TJ_ASSIGN_OR_RETURN(QuerySide side, drawQuerySide(config, draw, rng, c));
  const DType dtype = side.query.dtype;
  const int64_t hkv = c.numQHeads / c.gqaRatio, d = c.headSize, dv = c.vHeadSize;
  int64_t maxLen = 1, usedBlocks = 0;
  for (int64_t len : seqLens) {
    maxLen = std::max(maxLen, len);
    usedBlocks += (len + bs - 1) / bs;
  }
  const int64_t maxBlocksPerSeq = (maxLen + bs - 1) / bs;
  const int64_t ownBlocks = usedBlocks + 3;  // a few blocks nobody owns, all NaN
  const int64_t numBlocks = problem.padBlocks + ownBlocks;
  std::vector<int64_t> blockOrder(static_cast<size_t>(ownBlocks));
  std::iota(blockOrder.begin(), blockOrder.end(), problem.padBlocks);
  std::shuffle(blockOrder.begin(), blockOrder.end(), rng);
  std::vector<int64_t> keyShape = {numBlocks, bs, hkv, d}, valueShape = {numBlocks, bs, hkv, dv};
  if (config.text("kv_layout") == "shuffled") {
    keyShape = {numBlocks, hkv, d / 8, bs, 8};
    valueShape = {numBlocks, hkv, bs / 8, dv, 8};
  }
  HostTensor keyCache(dtype, keyShape), valueCache(dtype, valueShape);
  keyCache.fillNaN();
  valueCache.fillNaN();
  HostTensor table(DType::kI32, {seqs, maxBlocksPerSeq});
  HostTensor lens(DType::kI32, {seqs}), cuQ(DType::kI32, {seqs + 1});
  fillPagedBlockTable(table, seqLens, bs, blockOrder);
  std::normal_distribution<double> normal;
  // One token's K (or V) into its cache slot, and as stored into the un-paged copy.
  auto put = [&](HostTensor& cache, const std::vector<int64_t>& shape, bool isKey, int64_t block,
                 int64_t t, int64_t width, std::vector<double>& unpaged) {
    for (int64_t h = 0; h < hkv; ++h)
      for (int64_t x = 0; x < width; ++x) {
        const int64_t at = pagedCacheIndex(shape, isKey, block, t % bs, h, x);
        cache.set(at, normal(rng));
        unpaged[size_t((t * hkv + h) * width + x)] = cache.get(at);
      }
  };
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t len = seqLens[size_t(s)];
    lens.set(s, double(len));
    std::vector<double> keys(static_cast<size_t>(len * hkv * d));
    std::vector<double> values(static_cast<size_t>(len * hkv * dv));
    for (int64_t t = 0; t < len; ++t) {
      const int64_t block = int64_t(table.get(s * maxBlocksPerSeq + t / bs));
      put(keyCache, keyShape, true, block, t, d, keys);
      put(valueCache, valueShape, false, block, t, dv, values);
    }
    c.keys.push_back(std::move(keys));
    c.values.push_back(std::move(values));
  }
  for (int64_t s = 0; s <= seqs; ++s) cuQ.set(s, double(c.qStarts[size_t(s)]));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dKeys, DeviceTensor::upload(device, keyCache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dValues, DeviceTensor::upload(device, valueCache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dTable, DeviceTensor::upload(device, table));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dLens, DeviceTensor::upload(device, lens));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dCuQ, DeviceTensor::upload(device, cuQ));
  return runAttentionCheck(device, op, c, side,
                           {{"key_cache", dKeys.arg()},
                            {"value_cache", dValues.arg()},
                            {"block_tables", dTable.arg()},
                            {"seq_lens", dLens.arg()},
                            {"cu_seqlens_q", dCuQ.arg()}},
                           problem.iterations);
}

namespace reference {

// `tilejit run`'s problem: --shape num_q_heads=N (8), num_seqs (4) sequences of contexts around
// --shape context=N (300) with 1, 2, 17, ... new tokens (a decode-like one, a speculative
// verify of 2, chunks).
absl::Status register_extend(OpReferenceRegistry& registry) {
  OpCheck check = [](JitCompiler& jit, Device& device, const OpDefinition& definition,
                     const OpConfig& config, const OpCheckOptions& options)
      -> absl::StatusOr<OpCheckReport> {
    const auto began = std::chrono::steady_clock::now();
    ExtendProblem problem;
    problem.numQHeads = sizeOr(options, "num_q_heads", 8);
    if (problem.numQHeads % config.integer("gqa_ratio", 1) != 0)
      problem.numQHeads = config.integer("gqa_ratio", 1);
    problem.qLens = {1, 2};
    problem.contextLens = {0, 17};
    const int64_t context = sizeOr(options, "context", 300);
    for (int64_t s = 2; s < sizeOr(options, "num_seqs", 4); ++s) {
      problem.qLens.push_back(17 * s);
      problem.contextLens.push_back(context - 41 * s);
    }
    problem.iterations = options.iterations;
    problem.seed = options.seed;
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    TJ_ASSIGN_OR_RETURN(AttentionCheck result, checkExtendOp(device, *op, problem));
    return attentionReport(result, began);
  };
  return registry.add({"extend", {}, std::move(check)});
}

}  // namespace reference

}  // namespace tilejit
