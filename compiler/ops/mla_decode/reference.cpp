#include "compiler/ops/mla_decode/reference.h"

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

namespace {

constexpr int64_t kLatent = 576, kV = 512;

// The float64 MLA output of one (sequence, head): softmax(q . latent * scale) over the tokens,
// times the latents' first kV columns.
void referenceHead(const HostTensor& query, int64_t row, const std::vector<double>& latents,
                   int64_t len, double scale, double* out) {
  std::vector<double> logits(static_cast<size_t>(len));
  double maxLogit = -std::numeric_limits<double>::infinity();
  for (int64_t t = 0; t < len; ++t) {
    double dot = 0;
    for (int64_t d = 0; d < kLatent; ++d)
      dot += query.get(row * kLatent + d) * latents[size_t(t * kLatent + d)];
    logits[size_t(t)] = dot * scale;
    maxLogit = std::max(maxLogit, logits[size_t(t)]);
  }
  double sum = 0;
  for (double& logit : logits) sum += (logit = std::exp(logit - maxLogit));
  for (int64_t d = 0; d < kV; ++d) {
    double acc = 0;
    for (int64_t t = 0; t < len; ++t) acc += logits[size_t(t)] * latents[size_t(t * kLatent + d)];
    out[d] = len > 0 ? acc / sum : 0.0;
  }
}

}  // namespace

absl::StatusOr<MlaCheck> checkMlaDecodeOp(Device& device, const Op& op, const MlaProblem& problem) {
  const OpConfig& config = op.config();
  MlaCheck check;
  check.compiled = op.compiled();
  const std::string dtypeText = config.text("dtype");
  TJ_ASSIGN_OR_RETURN(DType dtype, parseDType(dtypeText));
  const int64_t seqs = int64_t(problem.seqLens.size()), hq = problem.numQHeads;
  const int64_t bs = config.integer("block_size"), qLen = problem.qLen;
  if (qLen != config.integer("q_len", 1))
    return absl::InvalidArgumentError("the problem's qLen must be the op's q_len");
  for (int64_t len : problem.seqLens)
    if (len != 0 && len < qLen)
      return absl::InvalidArgumentError(
          "a sequence holds its q_len new tokens: length 0 or >= q_len");
  const int64_t tokens = seqs * qLen;
  int64_t maxLen = problem.maxModelLen;
  for (int64_t len : problem.seqLens) maxLen = std::max(maxLen, len);
  const int64_t maxBlocksPerSeq = std::max<int64_t>(1, (maxLen + bs - 1) / bs);
  int64_t usedBlocks = 0;
  for (int64_t len : problem.seqLens) usedBlocks += (len + bs - 1) / bs;
  const int64_t ownBlocks = usedBlocks + 3;  // a few blocks nobody owns, all NaN
  const int64_t numBlocks = problem.padBlocks + ownBlocks;

  std::mt19937_64 rng(problem.seed);
  std::vector<int64_t> blockOrder(static_cast<size_t>(ownBlocks));
  std::iota(blockOrder.begin(), blockOrder.end(), problem.padBlocks);
  std::shuffle(blockOrder.begin(), blockOrder.end(), rng);
  HostTensor cache(dtype, {numBlocks, bs, 1, kLatent});
  cache.fillNaN();
  HostTensor table(DType::kI32, {seqs, maxBlocksPerSeq});
  HostTensor lens(DType::kI32, {seqs});
  HostTensor query(dtype, {tokens, hq, kLatent});
  query.fillNormal(rng);
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> latents(static_cast<size_t>(seqs));
  fillPagedBlockTable(table, problem.seqLens, bs, blockOrder);
  for (int64_t s = 0; s < seqs; ++s) {
    const int64_t len = problem.seqLens[size_t(s)];
    lens.set(s, double(len));
    latents[size_t(s)].resize(size_t(len * kLatent));
    for (int64_t t = 0; t < len; ++t) {
      const int64_t block = int64_t(table.get(s * maxBlocksPerSeq + t / bs));
      for (int64_t d = 0; d < kLatent; ++d) {
        const int64_t at = (block * bs + t % bs) * kLatent + d;
        cache.set(at, normal(rng));
        latents[size_t(s)][size_t(t * kLatent + d)] = cache.get(at);  // as stored (rounded)
      }
    }
  }

  const ProblemSizes sizes = {
      {"num_tokens", tokens}, {"num_q_heads", hq}, {"max_model_len", maxLen}};
  TJ_ASSIGN_OR_RETURN(WorkspaceShape outShape, op.workspaceShape("partial_out", sizes));
  TJ_ASSIGN_OR_RETURN(WorkspaceShape lseShape, op.workspaceShape("partial_lse", sizes));
  HostTensor output(dtype, {tokens, hq, kV});
  HostTensor partialOut(outShape.dtype, outShape.shape), partialLse(lseShape.dtype, lseShape.shape);
  output.fillNaN();
  partialOut.fillNaN();
  partialLse.fillNaN();
  TJ_ASSIGN_OR_RETURN(DeviceTensor dOut, DeviceTensor::upload(device, output));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dQuery, DeviceTensor::upload(device, query));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dCache, DeviceTensor::upload(device, cache));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dTable, DeviceTensor::upload(device, table));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dLens, DeviceTensor::upload(device, lens));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dPartialOut, DeviceTensor::upload(device, partialOut));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dPartialLse, DeviceTensor::upload(device, partialLse));
  // DeepSeek's softmax scale: 1 / sqrt(qk_nope_head_dim + qk_rope_head_dim) = 1 / sqrt(192).
  const double scale = 1.0 / std::sqrt(192.0);
  const std::map<std::string, KernelArg> byName = {
      {"output", dOut.arg()},          {"query", dQuery.arg()},
      {"latent_cache", dCache.arg()},  {"block_tables", dTable.arg()},
      {"seq_lens", dLens.arg()},       {"partial_out", dPartialOut.arg()},
      {"partial_lse", dPartialLse.arg()}, {"scale", ScalarArg::f32(float(scale))}};
  TJ_ASSIGN_OR_RETURN(std::vector<KernelArg> args, op.argumentsInOrder(byName));
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_RETURN_IF_ERROR(dOut.download(output));

  std::vector<double> reference(static_cast<size_t>(tokens * hq * kV), 0.0);
  for (int64_t token = 0; token < tokens; ++token) {
    const int64_t s = token / qLen, len = problem.seqLens[size_t(s)];
    const int64_t seen = std::max<int64_t>(0, len - qLen + token % qLen + 1);
    for (int64_t h = 0; h < hq; ++h)
      referenceHead(query, token * hq + h, latents[size_t(s)], seen, scale,
                    &reference[size_t((token * hq + h) * kV)]);
  }
  ErrorReport error = compare(output, reference);
  // The (token, head) row that is furthest off, and its worst column, for the message.
  struct Worst {
    double error = -1;
    int64_t token = 0, head = 0, column = 0;
  } worst;
  for (int64_t row = 0; row < tokens * hq; ++row)
    for (int64_t d = 0; d < kV; ++d) {
      const double got = output.get(row * kV + d), want = reference[size_t(row * kV + d)];
      const double off =
          std::isnan(got) ? std::numeric_limits<double>::infinity() : std::fabs(got - want);
      if (off > worst.error) worst = {off, row / hq, row % hq, d};
    }
  check.relativeLinf = error.relativeLinf;
  check.nanOutputs = error.nanCount;
  check.tolerance = dtypeText == "bf16" ? 2e-2 : 5e-3;
  check.passed = error.nanCount == 0 && error.relativeLinf <= check.tolerance;
  const int64_t at = (worst.token * hq + worst.head) * kV + worst.column;
  check.detail = absl::StrFormat(
      "rel L-inf %.3e (tolerance %.0e), %d NaN/inf outputs of %d; worst at sequence %d token %d "
      "(length %d) head %d column %d: %g vs %g",
      error.relativeLinf, check.tolerance, error.nanCount, error.compared, worst.token / qLen,
      worst.token % qLen, problem.seqLens[size_t(worst.token / qLen)], worst.head, worst.column,
      output.get(at), reference[size_t(at)]);
  for (int64_t len : problem.seqLens) check.latentBytes += double(len * kLatent * dtypeSize(dtype));
  if (problem.iterations > 0) {
    TJ_ASSIGN_OR_RETURN(std::vector<double> times,
                        device.time([&] { return op.run(args); }, 3, problem.iterations));
    std::nth_element(times.begin(), times.begin() + long(times.size() / 2), times.end());
    check.medianMs = times[times.size() / 2];
  }
  return check;
}

namespace reference {

namespace {

// `tilejit run`'s problem: 16 q heads (--shape num_q_heads=N), num_seqs (6) sequences around
// block and partition edges below --shape context=N (1100), one of q_len tokens and one empty.
MlaProblem runProblem(const OpConfig& config, const OpCheckOptions& options) {
  auto sized = [&](const char* name, int64_t fallback) {
    auto it = options.shape.find(name);
    return it == options.shape.end() ? fallback : it->second;
  };
  MlaProblem problem;
  problem.numQHeads = sized("num_q_heads", 16);
  problem.qLen = config.integer("q_len", 1);
  problem.seqLens = {problem.qLen, 0};
  const int64_t context = sized("context", 1100);
  for (int64_t s = 2; s < sized("num_seqs", 6); ++s)
    problem.seqLens.push_back(std::max<int64_t>(problem.qLen, context - 41 * s));
  problem.iterations = options.iterations;
  problem.seed = options.seed;
  return problem;
}

}  // namespace

// "load ms": the whole check (op creation, data, reference).
absl::Status register_mla_decode(OpReferenceRegistry& registry) {
  OpCheck check = [](JitCompiler& jit, Device& device, const OpDefinition& definition,
                     const OpConfig& config, const OpCheckOptions& options)
      -> absl::StatusOr<OpCheckReport> {
    const auto began = std::chrono::steady_clock::now();
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    TJ_ASSIGN_OR_RETURN(MlaCheck mla, checkMlaDecodeOp(device, *op, runProblem(config, options)));
    OpCheckReport report;
    report.check = {mla.passed, mla.relativeLinf, mla.tolerance, mla.detail};
    report.compiled = mla.compiled;
    report.medianMs = mla.medianMs;
    report.bytes = mla.latentBytes;
    report.loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    return report;
  };
  return registry.add({"mla_decode", {}, std::move(check)});
}

}  // namespace reference

}  // namespace tilejit
