// Reference for merge_attn_states: the float64 LSE merge, with both-empty rows defined as 0
// and -inf; empty sides (LSE -inf, or +inf as FA2 marks them) hold NaN outputs, so a kernel
// that multiplies instead of selecting fails.
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class MergeAttnStatesCase final : public KernelCase {
 public:
  std::string templateName() const override { return "merge_attn_states"; }
  std::map<std::string, int64_t> defaultShape() const override {
    return {{"num_tokens", 512}, {"num_heads", 32}};
  }

  absl::Status fill(HostArgs& args, std::mt19937_64& rng) const override {
    HostTensor& prefixLse = argNamed(args, "prefix_lse").tensor;  // [heads, tokens]
    HostTensor& suffixLse = argNamed(args, "suffix_lse").tensor;
    HostTensor& prefix = argNamed(args, "prefix_output").tensor;  // [tokens, heads, d]
    HostTensor& suffix = argNamed(args, "suffix_output").tensor;
    prefix.fillNormal(rng);
    suffix.fillNormal(rng);
    prefixLse.fillNormal(rng, 3.0);
    suffixLse.fillNormal(rng, 3.0);
    const int64_t heads = prefixLse.shape[0], tokens = prefixLse.shape[1];
    const int64_t headSize = prefix.shape[2];
    std::uniform_real_distribution<double> uniform(0, 1);
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < tokens; ++t) {
        double u = uniform(rng);
        bool prefixEmpty = u < 0.07, suffixEmpty = u >= 0.05 && u < 0.12;
        if (prefixEmpty) prefixLse.set(h * tokens + t, u < 0.02 ? kInf : -kInf);
        if (suffixEmpty) suffixLse.set(h * tokens + t, -kInf);
        for (int64_t d = 0; d < headSize; ++d) {
          if (prefixEmpty) prefix.set((t * heads + h) * headSize + d, std::nan(""));
          if (suffixEmpty) suffix.set((t * heads + h) * headSize + d, std::nan(""));
        }
      }
    argNamed(args, "output").tensor.fillNaN();
    argNamed(args, "output_lse").tensor.fillNaN();
    return absl::OkStatus();
  }

  CheckResult check(const HostArgs& in, const HostArgs& out) const override {
    const HostTensor& prefixLse = argNamed(in, "prefix_lse").tensor;
    const HostTensor& suffixLse = argNamed(in, "suffix_lse").tensor;
    const HostTensor& prefix = argNamed(in, "prefix_output").tensor;
    const HostTensor& suffix = argNamed(in, "suffix_output").tensor;
    const int64_t heads = prefixLse.shape[0], tokens = prefixLse.shape[1];
    const int64_t headSize = prefix.shape[2];
    std::vector<double> refOut(size_t(tokens * heads * headSize));
    std::vector<double> refLse(size_t(heads * tokens));
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t t = 0; t < tokens; ++t) {
        double p = prefixLse.get(h * tokens + t), s = suffixLse.get(h * tokens + t);
        if (p == kInf) p = -kInf;
        if (s == kInf) s = -kInf;
        double m = std::max(p, s);
        double pw = 0, sw = 0, lse = -kInf;
        if (m != -kInf) {
          double pe = std::exp(p - m), se = std::exp(s - m);
          pw = pe / (pe + se);
          sw = se / (pe + se);
          lse = std::log(pe + se) + m;
        }
        refLse[size_t(h * tokens + t)] = lse;
        for (int64_t d = 0; d < headSize; ++d) {
          int64_t i = (t * heads + h) * headSize + d;
          refOut[size_t(i)] = (pw > 0 ? pw * prefix.get(i) : 0) + (sw > 0 ? sw * suffix.get(i) : 0);
        }
      }
    ErrorReport output = compare(argNamed(out, "output").tensor, refOut);
    ErrorReport lse = compare(argNamed(out, "output_lse").tensor, refLse);
    CheckResult result;
    result.error = std::max(output.relativeLinf, lse.relativeLinf);
    result.tolerance = 1e-2;  // bf16 output rounding is ~4e-3 relative
    // Rounding to bf16 averages out over the outputs; a mis-weighted merge does not.
    constexpr double kBiasTolerance = 1e-3;
    bool unbiased = std::fabs(output.meanRelativeBias) <= kBiasTolerance;
    result.passed = output.nanCount == 0 && lse.nanCount == 0 && result.error <= result.tolerance &&
                    unbiased;
    result.detail = absl::StrFormat(
        "output rel L-inf %.2e (%d NaN/inf mismatches), mean rel bias %+.1e (tolerance %.0e)%s, "
        "lse rel L-inf %.2e (%d mismatches)",
        output.relativeLinf, output.nanCount, output.meanRelativeBias, kBiasTolerance,
        unbiased ? "" : " BIASED", lse.relativeLinf, lse.nanCount);
    return result;
  }

  double bytesMoved(const HostArgs& in) const override {
    const HostTensor& prefix = argNamed(in, "prefix_output").tensor;
    const HostTensor& lse = argNamed(in, "prefix_lse").tensor;
    return 3.0 * double(prefix.bytes.size()) + 3.0 * double(lse.bytes.size());
  }
};

}  // namespace

namespace reference {
absl::Status register_merge_attn_states(OpReferenceRegistry& registry) {
  return registry.addKernelCase("merge_attn_states", std::make_unique<MergeAttnStatesCase>());
}
}  // namespace reference

}  // namespace tilejit
