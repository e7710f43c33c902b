#include "compiler/ops/paged_decode/reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "support/status.h"
#include "tools/harness/host_tensor.h"
#include "tools/harness/op_reference.h"

namespace tilejit {

absl::StatusOr<DecodeCheck> checkPagedDecode(JitCompiler& jit, Device& device,
                                             const PagedDecodeConfig& config,
                                             const DecodeProblem& problem) {
  TJ_ASSIGN_OR_RETURN(PagedDecode op, PagedDecode::create(jit, device, config));
  return checkPagedDecodeOp(device, op.op(), problem);
}

absl::StatusOr<DecodeCheck> checkPagedDecodeOp(Device& device, const Op& op,
                                               const DecodeProblem& problem) {
  const OpConfig& config = op.config();
  DecodeCheck check;
  check.compiled = op.compiled();
  const std::string dtypeText = config.text("dtype");
  TJ_ASSIGN_OR_RETURN(DType dtype, parseDType(dtypeText));
  const int64_t seqs = int64_t(problem.seqLens.size());
  const int64_t hq = problem.numQHeads, hkv = problem.numKvHeads, dim = config.integer("head_size");
  const int64_t bs = config.integer("block_size"), gqaRatio = config.integer("gqa_ratio");
  const bool shuffled = config.text("kv_layout") == "shuffled";
  const bool softCap = config.flag("soft_cap"), alibi = config.flag("alibi");
  const bool sinks = config.flag("sinks");
  // fp8 caches: codes of value / scale, read back as code x scale (the reference's K/V).
  const std::string kvCache = config.text("kv_cache_dtype");
  const DType cacheType = kvCache == "fp8_e4m3"   ? DType::kF8E4M3FN
                          : kvCache == "fp8_e5m2" ? DType::kF8E5M2
                                                  : dtype;
  const bool perHead = config.text("kv_scale") == "per_head";
  if (hq != hkv * gqaRatio)
    return absl::InvalidArgumentError("numQHeads must be numKvHeads * gqaRatio");
  int64_t maxLen = problem.maxModelLen;
  for (int64_t len : problem.seqLens) maxLen = std::max(maxLen, len);
  const int64_t maxBlocksPerSeq = std::max<int64_t>(1, (maxLen + bs - 1) / bs);
  int64_t usedBlocks = 0;
  for (int64_t len : problem.seqLens) usedBlocks += (len + bs - 1) / bs;
  const int64_t numBlocks = usedBlocks + 3;  // a few blocks nobody owns, all NaN

  std::mt19937_64 rng(problem.seed);
  std::vector<int64_t> blockOrder(static_cast<size_t>(numBlocks));
  std::iota(blockOrder.begin(), blockOrder.end(), 0);
  std::shuffle(blockOrder.begin(), blockOrder.end(), rng);

  std::vector<int64_t> cacheShape = {numBlocks, bs, hkv, dim};
  std::vector<int64_t> keyShape = cacheShape, valueShape = cacheShape;
  if (shuffled) {
    keyShape = {numBlocks, hkv, dim / 8, bs, 8};
    valueShape = {numBlocks, hkv, bs / 8, dim, 8};
  }
  HostTensor keyCache(cacheType, keyShape), valueCache(cacheType, valueShape);
  keyCache.fillNormal(rng);
  valueCache.fillNormal(rng);
  if (problem.poisonTails) {
    keyCache.fillNaN();
    valueCache.fillNaN();
  }
  HostTensor table(DType::kI32, {seqs, maxBlocksPerSeq});
  HostTensor lens(DType::kI32, {seqs});
  HostTensor query(dtype, {seqs, hq, dim});
  query.fillNormal(rng);
  HostTensor slopes(DType::kF32, {hq});
  for (int64_t h = 0; h < hq; ++h) slopes.set(h, std::pow(2.0, -8.0 * double(h + 1) / double(hq)));
  // Sink logits around the logits' own range (|q.k| * scale is about 1): some heads' sinks
  // outweigh every token, some hardly count.
  HostTensor sinkLogits(DType::kF32, {hq});
  std::uniform_real_distribution<double> sinkRange(-3.0, 6.0);
  if (sinks)  // (drawn only then: the other cases' data stays as it was)
    for (int64_t h = 0; h < hq; ++h) sinkLogits.set(h, sinkRange(rng));
  // Scales that put |codes| of normal values up to about 4 / 0.011 = 360 (e4m3fn's top binade)
  // and down into the subnormals; each kv head its own where they are per head.
  HostTensor kScales(DType::kF32, {perHead ? hkv : 1}), vScales(DType::kF32, {perHead ? hkv : 1});
  std::uniform_real_distribution<double> scaleRange(0.011, 0.05);
  for (int64_t i = 0; i < kScales.numel(); ++i) {
    kScales.set(i, cacheType == dtype ? 1.0 : scaleRange(rng));
    vScales.set(i, cacheType == dtype ? 1.0 : scaleRange(rng));
  }
  auto scaleOf = [&](const HostTensor& scales, int64_t kvHead) {
    return cacheType == dtype ? 1.0 : scales.get(perHead ? kvHead : 0);
  };
  // Logical K/V per sequence (rounded to the cache dtype), scattered into the cache.
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> keys(static_cast<size_t>(seqs)), values(static_cast<size_t>(seqs));
  fillPagedBlockTable(table, problem.seqLens, bs, blockOrder);
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t len = problem.seqLens[size_t(s)];
    lens.set(s, double(len));
    keys[size_t(s)].resize(size_t(len * hkv * dim));
    values[size_t(s)].resize(size_t(len * hkv * dim));
    for (int64_t t = 0; t < len; ++t) {
      const int64_t block = int64_t(table.get(s * maxBlocksPerSeq + t / bs));
      for (int64_t h = 0; h < hkv; ++h)
        for (int64_t d = 0; d < dim; ++d) {
          const size_t i = size_t((t * hkv + h) * dim + d);
          int64_t ki = pagedCacheIndex(keyShape, true, block, t % bs, h, d);
          int64_t vi = pagedCacheIndex(valueShape, false, block, t % bs, h, d);
          const double ks = scaleOf(kScales, h), vs = scaleOf(vScales, h);
          keyCache.set(ki, normal(rng) / ks);
          valueCache.set(vi, normal(rng) / vs);
          keys[size_t(s)][i] = keyCache.get(ki) * ks;
          values[size_t(s)][i] = valueCache.get(vi) * vs;
        }
    }
  }

  const ProblemSizes sizes = {{"num_seqs", seqs}, {"num_kv_heads", hkv}, {"max_model_len", maxLen}};
  TJ_ASSIGN_OR_RETURN(WorkspaceShape outShape, op.workspaceShape("partial_out", sizes));
  TJ_ASSIGN_OR_RETURN(WorkspaceShape lseShape, op.workspaceShape("partial_lse", sizes));
  TJ_ASSIGN_OR_RETURN(WorkspaceShape arrivalsShape, op.workspaceShape("arrivals", sizes));
  HostTensor output(dtype, {seqs, hq, dim});
  HostTensor partialOut(outShape.dtype, outShape.shape);
  HostTensor partialLse(lseShape.dtype, lseShape.shape);
  output.fillNaN();
  partialOut.fillNaN();
  partialLse.fillNaN();

  TJ_ASSIGN_OR_RETURN(DeviceTensor dOut, DeviceTensor::upload(device, output));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dQuery, DeviceTensor::upload(device, query));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dKey, DeviceTensor::upload(device, keyCache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dValue, DeviceTensor::upload(device, valueCache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dTable, DeviceTensor::upload(device, table));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dLens, DeviceTensor::upload(device, lens));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dSlopes, DeviceTensor::upload(device, slopes));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dSinks, DeviceTensor::upload(device, sinkLogits));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dKScales, DeviceTensor::upload(device, kScales));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dVScales, DeviceTensor::upload(device, vScales));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dPartialOut, DeviceTensor::upload(device, partialOut));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dPartialLse, DeviceTensor::upload(device, partialLse));
  HostTensor arrivals(arrivalsShape.dtype, arrivalsShape.shape);  // zeroed, as the op requires
  TJ_ASSIGN_OR_RETURN(DeviceTensor dArrivals, DeviceTensor::upload(device, arrivals));
  const double scale = 1.0 / std::sqrt(double(dim));
  const std::map<std::string, KernelArg> byName = {
      {"output", dOut.arg()}, {"query", dQuery.arg()}, {"key_cache", dKey.arg()},
      {"value_cache", dValue.arg()}, {"block_tables", dTable.arg()}, {"seq_lens", dLens.arg()},
      {"alibi_slopes", dSlopes.arg()}, {"sinks", dSinks.arg()},
      {"k_scales", dKScales.arg()}, {"v_scales", dVScales.arg()}, {"partial_out", dPartialOut.arg()},
      {"partial_lse", dPartialLse.arg()}, {"arrivals", dArrivals.arg()},
      {"scale", ScalarArg::f32(float(scale))},
      {"soft_cap_value", ScalarArg::f32(problem.softCapValue)},
      {"sliding_window", ScalarArg{DType::kI32, 0, problem.slidingWindow}}};
  TJ_ASSIGN_OR_RETURN(std::vector<KernelArg> args, op.argumentsInOrder(byName));
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_RETURN_IF_ERROR(dOut.download(output));
  // The next call starts from these counters: a merge in the split-K kernel leaves them at 0.
  TJ_RETURN_IF_ERROR(dArrivals.download(arrivals));
  for (int64_t i = 0; i < arrivals.numel(); ++i)
    if (arrivals.get(i) != 0)
      return absl::InternalError(absl::StrCat("arrival counter ", i, " (sequence ", i / hkv, ", kv head ",
                                              i % hkv, ") left at ", arrivals.get(i), ", not 0"));

  std::vector<double> reference(static_cast<size_t>(seqs * hq * dim), 0.0);
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t len = problem.seqLens[size_t(s)];
    const int64_t first = problem.slidingWindow > 0 ? std::max<int64_t>(0, len - problem.slidingWindow) : 0;
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kvh = h / gqaRatio;
      std::vector<double> logits(static_cast<size_t>(len), -std::numeric_limits<double>::infinity());
      double maxLogit = -std::numeric_limits<double>::infinity();
      for (int64_t t = first; t < len; ++t) {
        double dotProduct = 0;
        for (int64_t d = 0; d < dim; ++d)
          dotProduct += query.get((s * hq + h) * dim + d) * keys[size_t(s)][size_t((t * hkv + kvh) * dim + d)];
        double logit = dotProduct * scale;
        if (softCap) logit = problem.softCapValue * std::tanh(logit / problem.softCapValue);
        if (alibi) logit += slopes.get(h) * double(t - (len - 1));
        logits[size_t(t)] = logit;
        maxLogit = std::max(maxLogit, logit);
      }
      if (len == 0 || first >= len) continue;
      // The sink: one more term of the denominator, of no value.
      const double sink = sinks ? sinkLogits.get(h) : -std::numeric_limits<double>::infinity();
      maxLogit = std::max(maxLogit, sink);
      double sum = std::exp(sink - maxLogit);
      for (int64_t t = first; t < len; ++t) sum += std::exp(logits[size_t(t)] - maxLogit);
      for (int64_t d = 0; d < dim; ++d) {
        double acc = 0;
        for (int64_t t = first; t < len; ++t)
          acc += std::exp(logits[size_t(t)] - maxLogit) * values[size_t(s)][size_t((t * hkv + kvh) * dim + d)];
        reference[size_t((s * hq + h) * dim + d)] = acc / sum;
      }
    }
  }
  if (problem.iterations > 0) {
    TJ_ASSIGN_OR_RETURN(std::vector<double> times,
                        device.time([&] { return op.run(args); }, 3, problem.iterations));
    std::sort(times.begin(), times.end());
    check.medianMs = times[times.size() / 2];
  }
  for (int64_t len : problem.seqLens) check.kvBytes += double(len * hkv * dim * 2 * dtypeSize(cacheType));
  ErrorReport error = compare(output, reference);
  // Where it is worst, for the message: (sequence, length, head, got, expected).
  int64_t worst = 0;
  double worstError = -1;
  for (int64_t i = 0; i < output.numel(); ++i) {
    double e = std::isnan(output.get(i)) ? std::numeric_limits<double>::infinity()
                                         : std::fabs(output.get(i) - reference[size_t(i)]);
    if (e > worstError) worstError = e, worst = i;
  }
  const int64_t worstSeq = worst / (hq * dim);
  check.relativeLinf = error.relativeLinf;
  check.nanOutputs = error.nanCount;
  check.tolerance = dtypeText == "bf16" ? 2e-2 : 5e-3;
  check.passed = error.nanCount == 0 && error.relativeLinf <= check.tolerance;
  check.detail = absl::StrFormat(
      "rel L-inf %.3e (tolerance %.0e), %d NaN/inf outputs of %d; worst at sequence %d "
      "(length %d) head %d: %g vs %g",
      error.relativeLinf, check.tolerance, error.nanCount, error.compared, worstSeq,
      problem.seqLens[size_t(worstSeq)], (worst / dim) % hq, output.get(worst),
      reference[size_t(worst)]);
  return check;
}

namespace reference {

// `tilejit run`'s problem: GQA 4 (unless given), 2 kv heads, num_seqs (8) sequences whose
// lengths sit around block and partition edges below --shape context=N (1000), one of 1 token.
// "load ms": the whole check (op creation, data, reference).
absl::Status register_paged_decode(OpReferenceRegistry& registry) {
  OpCheck check = [](JitCompiler& jit, Device& device, const OpDefinition& definition,
                     const OpConfig& config, const OpCheckOptions& options)
      -> absl::StatusOr<OpCheckReport> {
    auto start = std::chrono::steady_clock::now();
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    auto shape = [&](const char* name, int64_t fallback) {
      auto it = options.shape.find(name);
      return it == options.shape.end() ? fallback : it->second;
    };
    DecodeProblem problem;
    problem.numKvHeads = 2;
    problem.numQHeads = 2 * config.integer("gqa_ratio");
    const int64_t seqs = shape("num_seqs", 8), context = shape("context", 1000);
    problem.seqLens.clear();
    for (int64_t s = 0; s < seqs; ++s) problem.seqLens.push_back(s == 0 ? 1 : context - 37 * s);
    problem.iterations = options.iterations;
    problem.seed = options.seed;
    TJ_ASSIGN_OR_RETURN(DecodeCheck decode, checkPagedDecodeOp(device, *op, problem));
    OpCheckReport report;
    report.loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.compiled = decode.compiled;
    report.check = {decode.passed, decode.relativeLinf, decode.tolerance, decode.detail};
    report.medianMs = decode.medianMs;
    report.bytes = decode.kvBytes;
    return report;
  };
  return registry.add({"paged_decode", {{"gqa_ratio", 4}}, std::move(check)});
}

}  // namespace reference

}  // namespace tilejit
