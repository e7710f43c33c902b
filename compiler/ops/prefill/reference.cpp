#include "compiler/ops/prefill/reference.h"

#include "support/status.h"

namespace tilejit {

namespace {

std::vector<int64_t> startsOf(const std::vector<int64_t>& lens) {
  std::vector<int64_t> starts = {0};
  for (int64_t len : lens) starts.push_back(starts.back() + len);
  return starts;
}

// Rows first .. first + count - 1 of a packed [tokens, heads, width] tensor, as float64.
std::vector<double> rowsOf(const HostTensor& packed, int64_t first, int64_t count) {
  const int64_t row = packed.shape[1] * packed.shape[2];
  std::vector<double> rows(static_cast<size_t>(count * row));
  for (int64_t i = 0; i < count * row; ++i) rows[size_t(i)] = packed.get(first * row + i);
  return rows;
}

}  // namespace

absl::StatusOr<AttentionCheck> checkPrefillOp(Device& device, const Op& op,
                                              const PrefillProblem& problem) {
  const std::vector<int64_t> kLens = problem.kLens.empty() ? problem.qLens : problem.kLens;
  if (kLens.size() != problem.qLens.size())
    return absl::InvalidArgumentError("the problem needs one k length per q length");
  AttentionCase c;
  c.qStarts = startsOf(problem.qLens);
  const std::vector<int64_t> kStarts = startsOf(kLens);
  const int64_t pad = problem.paddingTokens, seqs = int64_t(problem.qLens.size());
  std::mt19937_64 rng(problem.seed);
  AttentionDraw draw{problem.numQHeads, c.qStarts.back() + pad, pad,
                     problem.queryStddev, problem.softCapValue, problem.window};
  TJ_ASSIGN_OR_RETURN(QuerySide side, drawQuerySide(op.config(), draw, rng, c));
  const DType dtype = side.query.dtype;
  const int64_t hkv = c.numQHeads / c.gqaRatio, kTokens = kStarts.back() + pad;
  HostTensor key(dtype, {kTokens, hkv, c.headSize}), value(dtype, {kTokens, hkv, c.vHeadSize});
  HostTensor cuQ(DType::kI32, {seqs + 1}), cuK(DType::kI32, {seqs + 1});
  for (HostTensor* t : {&key, &value}) {
    fillScaledNormal(*t, rng, 1.0);
    for (int64_t i = kStarts.back() * t->shape[1] * t->shape[2]; i < t->numel(); ++i)
      t->set(i, std::nan(""));
  }
  for (int64_t s = 0; s <= seqs; ++s) {
    cuQ.set(s, double(c.qStarts[size_t(s)]));
    cuK.set(s, double(kStarts[size_t(s)]));
  }
  for (int64_t s = 0; s < seqs; ++s) {
    c.keys.push_back(rowsOf(key, kStarts[size_t(s)], kLens[size_t(s)]));
    c.values.push_back(rowsOf(value, kStarts[size_t(s)], kLens[size_t(s)]));
  }
  TJ_ASSIGN_OR_RETURN(DeviceTensor dKey, DeviceTensor::upload(device, key));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dValue, DeviceTensor::upload(device, value));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dCuQ, DeviceTensor::upload(device, cuQ));
  TJ_ASSIGN_OR_RETURN(DeviceTensor dCuK, DeviceTensor::upload(device, cuK));
  return runAttentionCheck(device, op, c, side,
                           {{"key", headsMajor(dKey.arg())},
                            {"value", headsMajor(dValue.arg())},
                            {"cu_seqlens_q", dCuQ.arg()},
                            {"cu_seqlens_k", dCuK.arg()}},
                           problem.iterations);
}

namespace reference {

// `tilejit run`'s problem: --shape num_q_heads=N (8), num_seqs (4) sequences of lengths around
// --shape context=N (300), one empty and one of a single token.
absl::Status register_prefill(OpReferenceRegistry& registry) {
  OpCheck check = [](JitCompiler& jit, Device& device, const OpDefinition& definition,
                     const OpConfig& config, const OpCheckOptions& options)
      -> absl::StatusOr<OpCheckReport> {
    const auto began = std::chrono::steady_clock::now();
    PrefillProblem problem;
    problem.numQHeads = sizeOr(options, "num_q_heads", 8);
    if (problem.numQHeads % config.integer("gqa_ratio", 1) != 0)
      problem.numQHeads = config.integer("gqa_ratio", 1);
    problem.qLens = {0, 1};
    const int64_t context = sizeOr(options, "context", 300);
    for (int64_t s = 2; s < sizeOr(options, "num_seqs", 4); ++s)
      problem.qLens.push_back(context - 37 * s);
    problem.kLens = {};
    problem.iterations = options.iterations;
    problem.seed = options.seed;
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    TJ_ASSIGN_OR_RETURN(AttentionCheck result, checkPrefillOp(device, *op, problem));
    return attentionReport(result, began);
  };
  return registry.add({"prefill", {}, std::move(check)});
}

}  // namespace reference

}  // namespace tilejit
