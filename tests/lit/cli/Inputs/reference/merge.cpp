// merge_attn_states in C++ for `tilejit run --reference` (tools/harness/tilejit_reference.h).
// The lines marked MUTANT are where the tests make their wrong references (sed).
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "tilejit_reference.h"

namespace {
const tj_host_tensor* find(const tj_host_tensor* tensors, int n, const char* name) {
  for (int i = 0; i < n; ++i)
    if (std::strcmp(tensors[i].name, name) == 0) return &tensors[i];
  return nullptr;
}
}  // namespace

extern "C" int tilejit_reference(const tj_host_tensor* in, int n_in, tj_host_tensor* out,
                                 int n_out) {
  const double inf = std::numeric_limits<double>::infinity();
  const tj_host_tensor* prefix = find(in, n_in, "prefix_output");
  const tj_host_tensor* suffix = find(in, n_in, "suffix_output");
  const tj_host_tensor* prefixLse = find(in, n_in, "prefix_lse");
  const tj_host_tensor* suffixLse = find(in, n_in, "suffix_lse");
  tj_host_tensor* output = const_cast<tj_host_tensor*>(find(out, n_out, "output"));
  tj_host_tensor* outputLse = const_cast<tj_host_tensor*>(find(out, n_out, "output_lse"));
  if (!prefix || !suffix || !prefixLse || !suffixLse || !output || !outputLse) return 1;
  const double scale = 1.0;  // MUTANT: scale
  const int64_t heads = prefixLse->shape[0], tokens = prefixLse->shape[1];
  const int64_t dims = prefix->shape[2];
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t t = 0; t < tokens; ++t) {
      double p = prefixLse->data[h * tokens + t], s = suffixLse->data[h * tokens + t];
      if (p == inf) p = -inf;
      if (s == inf) s = -inf;
      double m = std::fmax(p, s), pw = 0, sw = 0, lse = -inf;
      if (m != -inf) {
        double pe = std::exp(p - m), se = std::exp(s - m);
        pw = pe / (pe + se), sw = se / (pe + se), lse = std::log(pe + se) + m;
      }
      outputLse->data[h * tokens + t] = lse;
      for (int64_t d = 0; d < dims; ++d) {
        int64_t i = (t * heads + h) * dims + d;
        output->data[i] = scale * ((pw > 0 ? pw * prefix->data[i] : 0) +
                                   (sw > 0 ? sw * suffix->data[i] : 0));
      }
    }
  return 0;  // MUTANT: return
}
