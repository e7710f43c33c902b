// Reference for reshape_and_cache: every kept token's K/V rows land bit-exactly at its slot in
// the cache's layout; every other cache element keeps its NaN sentinel (a kernel that writes
// more than it should fails, not only one that writes less). An fp8 cache holds the code of
// value / scale (f32 division), clamped to the format's largest finite value, NaN kept: some
// values are made to overflow and some NaN, so that saturation and NaN are checked too.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

class ReshapeAndCacheCase final : public KernelCase {
 public:
  std::string templateName() const override { return "reshape_and_cache"; }
  std::map<std::string, int64_t> defaultShape() const override {
    // (Scales: one per kv head; a per_tensor kernel reads the first.)
    return {{"num_tokens", 1024}, {"num_kv_heads", 8}, {"num_blocks", 1024}, {"num_kv_scales", 8}};
  }

  absl::Status fill(HostArgs& args, std::mt19937_64& rng) const override {
    argNamed(args, "key").tensor.fillNormal(rng);
    argNamed(args, "value").tensor.fillNormal(rng);
    std::uniform_real_distribution<double> scale(0.004, 0.05), unit(0, 1);
    for (const char* name : {"k_scales", "v_scales"}) {
      HostTensor& scales = argNamed(args, name).tensor;
      for (int64_t i = 0; i < scales.numel(); ++i) scales.set(i, scale(rng));
    }
    if (isFp8(argNamed(args, "key_cache").tensor.dtype))
      for (const char* role : {"key", "value"}) {  // past 448 x scale, and NaN, here and there
        HostTensor& source = argNamed(args, role).tensor;
        for (int64_t i = 0; i < source.numel(); ++i) {
          const double u = unit(rng);
          if (u < 0.01) source.set(i, std::numeric_limits<double>::quiet_NaN());
          else if (u < 0.03) source.set(i, (u < 0.02 ? -1 : 1) * (4e3 + 4e4 * unit(rng)));
        }
      }
    argNamed(args, "key_cache").tensor.fillNaN();
    argNamed(args, "value_cache").tensor.fillNaN();
    HostTensor& slots = argNamed(args, "slot_mapping").tensor;
    const int64_t capacity = argNamed(args, "key_cache").tensor.numel() /
                             (headsOf(args) * argNamed(args, "key").tensor.shape[2]);
    if (slots.numel() > capacity)
      return absl::InvalidArgumentError(absl::StrFormat(
          "num_tokens %d exceeds the cache's %d slots", slots.numel(), capacity));
    std::vector<int64_t> all(static_cast<size_t>(capacity));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    std::uniform_real_distribution<double> uniform(0, 1);
    for (int64_t t = 0; t < slots.numel(); ++t)
      slots.set(t, uniform(rng) < 0.1 ? -1.0 : double(all[size_t(t)]));
    return absl::OkStatus();
  }

  CheckResult check(const HostArgs& in, const HostArgs& out) const override {
    return checkSpecialization(in, out, {});
  }

  CheckResult checkSpecialization(
      const HostArgs& in, const HostArgs& out,
      const std::vector<std::pair<std::string, std::string>>& parameters) const override {
    bool perHead = false;
    for (const auto& [name, value] : parameters) perHead |= name == "kv_scale" && value == "per_head";
    const HostTensor& key = argNamed(in, "key").tensor;
    const HostTensor& slots = argNamed(in, "slot_mapping").tensor;
    const int64_t heads = key.shape[1], headSize = key.shape[2];
    int64_t wrong = 0, touched = 0, compared = 0;
    for (const char* role : {"key", "value"}) {
      const HostTensor& source = argNamed(in, role).tensor;
      const HostTensor& cache = argNamed(out, std::string(role) + "_cache").tensor;
      std::vector<bool> written(size_t(cache.numel()), false);
      for (int64_t t = 0; t < slots.numel(); ++t) {
        int64_t slot = int64_t(slots.get(t));
        if (slot < 0) continue;
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t d = 0; d < headSize; ++d) {
            const int64_t blockSize = cache.shape.size() == 4 ? cache.shape[1]
                                    : (role[0] == 'k' ? cache.shape[3] : cache.shape[2] * cache.shape[4]);
            int64_t i = pagedCacheIndex(cache.shape, role[0] == 'k', slot / blockSize,
                                        slot % blockSize, h, d);
            written[size_t(i)] = true;
            ++compared;
            if (!sameCode(cache, i, expected(in, role, cache.dtype, perHead, h,
                                             source.get((t * heads + h) * headSize + d))))
              ++wrong;
          }
      }
      for (int64_t i = 0; i < cache.numel(); ++i)
        if (!written[size_t(i)] && !std::isnan(cache.get(i))) ++touched;
    }
    CheckResult result;
    result.passed = wrong == 0 && touched == 0;
    result.error = double(wrong + touched);
    result.tolerance = 0;
    result.detail = absl::StrFormat(
        "%d of %d written elements differ (bitwise); %d elements outside the slots changed",
        wrong, compared, touched);
    return result;
  }

  double bytesMoved(const HostArgs& in) const override {
    const HostTensor& slots = argNamed(in, "slot_mapping").tensor;
    const HostTensor& key = argNamed(in, "key").tensor;
    return 4.0 * double(key.bytes.size()) + double(slots.bytes.size());
  }

 private:
  static bool isFp8(DType dtype) { return dtype == DType::kF8E4M3FN || dtype == DType::kF8E5M2; }
  // The value a cache element must hold: the source's, or for fp8 its code's value.
  static double expected(const HostArgs& in, const char* role, DType cacheType, bool perHead,
                         int64_t head, double value) {
    if (!isFp8(cacheType)) return value;
    const HostTensor& scales = argNamed(in, role[0] == 'k' ? "k_scales" : "v_scales").tensor;
    const float largest = cacheType == DType::kF8E4M3FN ? 448.0f : 57344.0f;
    float q = float(value) / float(scales.get(perHead ? head : 0));
    if (!std::isnan(q)) q = std::min(largest, std::max(-largest, q));
    HostTensor code(cacheType, {1});
    code.set(0, q);
    return code.get(0);
  }
  // Equal values, NaN equal to NaN (an fp8 NaN is stored for a NaN source).
  static bool sameCode(const HostTensor& cache, int64_t i, double want) {
    const double got = cache.get(i);
    return std::isnan(want) ? std::isnan(got) : got == want;
  }
  static int64_t headsOf(const HostArgs& args) { return argNamed(args, "key").tensor.shape[1]; }
};

}  // namespace

namespace reference {
absl::Status register_reshape_and_cache(OpReferenceRegistry& registry) {
  return registry.addKernelCase("reshape_and_cache", std::make_unique<ReshapeAndCacheCase>());
}
}  // namespace reference

}  // namespace tilejit
