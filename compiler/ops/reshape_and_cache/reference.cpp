// Reference for reshape_and_cache: every kept token's K/V rows land bit-exactly at its slot in
// the cache's layout; every other cache element keeps its NaN sentinel (a kernel that writes
// more than it should fails, not only one that writes less).
#include <cmath>
#include <numeric>

#include "absl/strings/str_format.h"
#include "tools/harness/op_reference.h"

namespace tilejit {
namespace {

class ReshapeAndCacheCase final : public KernelCase {
 public:
  std::string templateName() const override { return "reshape_and_cache"; }
  std::map<std::string, int64_t> defaultShape() const override {
    return {{"num_tokens", 1024}, {"num_kv_heads", 8}, {"num_blocks", 1024}};
  }

  absl::Status fill(HostArgs& args, std::mt19937_64& rng) const override {
    argNamed(args, "key").tensor.fillNormal(rng);
    argNamed(args, "value").tensor.fillNormal(rng);
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
            if (cache.get(i) != source.get((t * heads + h) * headSize + d)) ++wrong;
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
  static int64_t headsOf(const HostArgs& args) { return argNamed(args, "key").tensor.shape[1]; }
};

}  // namespace

namespace reference {
absl::Status register_reshape_and_cache(OpReferenceRegistry& registry) {
  return registry.addKernelCase("reshape_and_cache", std::make_unique<ReshapeAndCacheCase>());
}
}  // namespace reference

}  // namespace tilejit
