#include "compiler/ops/prefill/reference_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "support/status.h"

namespace tilejit {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Whether query row r (key position r + offset) sees key j, and its logit's bias.
bool sees(const AttentionMasks& masks, int64_t position, int64_t j) {
  if (masks.causal && j > position) return false;
  if (masks.window > 0 && position - j >= masks.window) return false;
  return true;
}

}  // namespace

AttentionCheck checkAttentionOutputs(const AttentionCase& problem, const HostTensor& query,
                                     const HostTensor& output, const HostTensor& lse) {
  const int64_t hq = problem.numQHeads, d = problem.headSize, dv = problem.vHeadSize;
  const int64_t hkv = hq / problem.gqaRatio;
  const int64_t tokens = query.shape[0];
  const AttentionMasks& masks = problem.masks;
  std::vector<double> refOut(size_t(tokens * hq * dv), 0.0);
  std::vector<double> refLse(size_t(hq * tokens), -kInf);
  std::vector<bool> written(size_t(tokens), false);
  AttentionCheck check;
  std::vector<double> logits, row(static_cast<size_t>(d));
  for (size_t s = 0; s + 1 < problem.qStarts.size(); ++s) {
    const int64_t q0 = problem.qStarts[s], qLen = problem.qStarts[s + 1] - q0;
    const std::vector<double>& keys = problem.keys[s];
    const std::vector<double>& values = problem.values[s];
    const int64_t kLen = int64_t(keys.size()) / (hkv * d);
    for (int64_t r = 0; r < qLen; ++r) {
      written[size_t(q0 + r)] = true;
      const int64_t position = r + kLen - qLen;
      for (int64_t h = 0; h < hq; ++h) {
        const int64_t g = h / problem.gqaRatio;
        for (int64_t x = 0; x < d; ++x) row[size_t(x)] = query.get(((q0 + r) * hq + h) * d + x);
        logits.assign(size_t(kLen), -kInf);
        double maxLogit = -kInf;
        for (int64_t j = 0; j < kLen; ++j) {
          if (!sees(masks, position, j)) continue;
          double dot = 0;
          const double* key = &keys[size_t((j * hkv + g) * d)];
          for (int64_t x = 0; x < d; ++x) dot += row[size_t(x)] * key[x];
          double logit = dot * masks.scale;
          if (masks.softCap) logit = masks.softCapValue * std::tanh(logit / masks.softCapValue);
          if (masks.alibi) logit -= problem.slopes[size_t(h)] * double(std::llabs(j - position));
          logits[size_t(j)] = logit;
          maxLogit = std::max(maxLogit, logit);
          check.flops += 2.0 * double(d + dv);
        }
        if (maxLogit == -kInf) continue;  // no key: output 0, LSE -inf
        double sum = 0;
        for (double& logit : logits) sum += (logit = std::exp(logit - maxLogit));
        refLse[size_t(h * tokens + q0 + r)] = maxLogit + std::log(sum);
        double* out = &refOut[size_t(((q0 + r) * hq + h) * dv)];
        for (int64_t j = 0; j < kLen; ++j) {
          const double w = logits[size_t(j)] / sum;
          if (w == 0) continue;
          for (int64_t c = 0; c < dv; ++c) out[c] += w * values[size_t((j * hkv + g) * dv + c)];
        }
      }
    }
  }
  std::vector<bool> selected(size_t(tokens * hq * dv));
  for (int64_t i = 0; i < tokens * hq * dv; ++i) selected[size_t(i)] = written[size_t(i / (hq * dv))];
  ErrorReport error = compare(output, refOut, selected);
  // Rows that see no key must say -inf exactly; tokens past the last sequence keep their NaN.
  int64_t lseMismatches = 0, touched = 0;
  for (int64_t h = 0; h < hq; ++h)
    for (int64_t t = 0; t < tokens; ++t) {
      const double got = lse.get(h * tokens + t), want = refLse[size_t(h * tokens + t)];
      if (!written[size_t(t)]) {
        touched += std::isnan(got) ? 0 : 1;
        continue;
      }
      if (want == -kInf) {
        lseMismatches += got == -kInf ? 0 : 1;
        continue;
      }
      const double off = std::isnan(got) ? kInf : std::fabs(got - want);
      check.lseError = std::max(check.lseError, off);
    }
  for (int64_t i = 0; i < tokens * hq * dv; ++i)
    if (!selected[size_t(i)] && !std::isnan(output.get(i))) ++touched;
  check.relativeLinf = error.relativeLinf;
  check.nanOutputs = error.nanCount;
  check.tolerance = problem.dtype == "bf16" ? 1e-2 : 5e-3;
  constexpr double kLseTolerance = 2e-3;
  check.passed = error.nanCount == 0 && error.relativeLinf <= check.tolerance &&
                 check.lseError <= kLseTolerance && lseMismatches == 0 && touched == 0;
  check.detail = absl::StrFormat(
      "output rel L-inf %.3e (tolerance %.0e), %d NaN/inf of %d; lse max abs error %.2e "
      "(tolerance %.0e), %d rows without keys not -inf; %d elements past the last sequence "
      "written",
      error.relativeLinf, check.tolerance, error.nanCount, error.compared, check.lseError,
      kLseTolerance, lseMismatches, touched);
  return check;
}

void fillScaledNormal(HostTensor& tensor, std::mt19937_64& rng, double stddev) {
  std::normal_distribution<double> normal(0.0, stddev);
  for (int64_t i = 0; i < tensor.numel(); ++i) tensor.set(i, normal(rng));
}

TensorArg headsMajor(TensorArg packed) {
  std::swap(packed.shape[0], packed.shape[1]);
  std::swap(packed.strides[0], packed.strides[1]);
  return packed;
}

absl::StatusOr<QuerySide> drawQuerySide(const OpConfig& config, const AttentionDraw& draw,
                                        std::mt19937_64& rng, AttentionCase& c) {
  c.dtype = config.text("dtype");
  TJ_ASSIGN_OR_RETURN(DType dtype, parseDType(c.dtype));
  c.numQHeads = draw.numQHeads;
  c.gqaRatio = config.integer("gqa_ratio", 1);
  c.headSize = config.integer("head_size");
  c.vHeadSize = config.integer("v_head_size");
  if (c.numQHeads % c.gqaRatio != 0)
    return absl::InvalidArgumentError("the problem's q heads must be a multiple of gqa_ratio");
  const int64_t hq = c.numQHeads, tokens = draw.qTokens;
  QuerySide side{HostTensor(dtype, {tokens, hq, c.headSize}),
                 HostTensor(dtype, {tokens, hq, c.vHeadSize}), HostTensor(DType::kF32, {hq, tokens}),
                 HostTensor(DType::kF32, {hq})};
  fillScaledNormal(side.query, rng, draw.queryStddev);
  for (int64_t i = (tokens - draw.paddingTokens) * hq * c.headSize; i < side.query.numel(); ++i)
    side.query.set(i, std::nan(""));
  side.output.fillNaN();
  side.lse.fillNaN();
  // ALiBi slopes in [0.05, 0.5]: wide enough that a bias on the wrong distance shows.
  std::uniform_real_distribution<double> uniform(0.05, 0.5);
  c.slopes.clear();
  for (int64_t h = 0; h < hq; ++h) {
    side.slopes.set(h, uniform(rng));
    c.slopes.push_back(side.slopes.get(h));  // as stored (f32)
  }
  c.masks.scale = float(1.0 / std::sqrt(double(c.headSize)));
  c.masks.causal = config.flag("causal");
  c.masks.softCap = config.flag("soft_cap");
  c.masks.softCapValue = float(draw.softCapValue);
  c.masks.alibi = config.flag("alibi");
  c.masks.window = draw.window;
  return side;
}

absl::StatusOr<AttentionCheck> runAttentionCheck(Device& device, const Op& op,
                                                 const AttentionCase& c, QuerySide& side,
                                                 const std::map<std::string, KernelArg>& others,
                                                 int iterations) {
  TJ_ASSIGN_OR_RETURN(DeviceTensor query, DeviceTensor::upload(device, side.query));
  TJ_ASSIGN_OR_RETURN(DeviceTensor output, DeviceTensor::upload(device, side.output));
  TJ_ASSIGN_OR_RETURN(DeviceTensor lse, DeviceTensor::upload(device, side.lse));
  TJ_ASSIGN_OR_RETURN(DeviceTensor slopes, DeviceTensor::upload(device, side.slopes));
  std::map<std::string, KernelArg> byName = others;
  byName.insert({{"output", headsMajor(output.arg())},
                 {"lse", lse.arg()},
                 {"query", headsMajor(query.arg())},
                 {"alibi_slopes", slopes.arg()},
                 {"scale", ScalarArg::f32(float(c.masks.scale))},
                 {"soft_cap_value", ScalarArg::f32(float(c.masks.softCapValue))},
                 {"sliding_window", ScalarArg::i64(c.masks.window)}});
  TJ_ASSIGN_OR_RETURN(std::vector<KernelArg> args, op.argumentsInOrder(byName));
  TJ_RETURN_IF_ERROR(op.run(args));
  TJ_RETURN_IF_ERROR(device.synchronize());
  TJ_RETURN_IF_ERROR(output.download(side.output));
  TJ_RETURN_IF_ERROR(lse.download(side.lse));
  AttentionCheck check = checkAttentionOutputs(c, side.query, side.output, side.lse);
  check.compiled = op.compiled();
  if (iterations > 0) {
    TJ_ASSIGN_OR_RETURN(std::vector<double> times,
                        device.time([&] { return op.run(args); }, 3, iterations));
    std::nth_element(times.begin(), times.begin() + long(times.size() / 2), times.end());
    check.medianMs = times[times.size() / 2];
  }
  return check;
}

int64_t sizeOr(const OpCheckOptions& options, const char* name, int64_t fallback) {
  auto it = options.shape.find(name);
  return it == options.shape.end() ? fallback : it->second;
}

OpCheckReport attentionReport(const AttentionCheck& check,
                              std::chrono::steady_clock::time_point began) {
  OpCheckReport report;
  report.check = {check.passed, check.relativeLinf, check.tolerance, check.detail};
  report.compiled = check.compiled;
  report.medianMs = check.medianMs;
  report.loadSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return report;
}

}  // namespace tilejit
