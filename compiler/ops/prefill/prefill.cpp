// The op "prefill": varlen flash attention forward over packed q/k/v (templates/prefill.mlir).
// query, key, value and output are [heads, tokens, head_size] views of packed
// [tokens, heads, head_size] tensors (torch: x.transpose(0, 1)); lse is [q heads, q tokens].
#include "compiler/ops/prefill/attention_op.h"

namespace tilejit::ops {

absl::Status register_prefill(OpRegistry& registry) {
  return registry.add(
      {"prefill",
       "varlen flash attention forward (cu_seqlens for q and k; causal bottom-right, window, "
       "soft cap, ALiBi, GQA) returning the LSE",
       OpSchema("prefill", attentionParameters()),
       {"prefill"},
       [](JitCompiler& jit, Device& device, const OpConfig& config) {
         return createAttentionOp(jit, device, {"prefill", "key", 0, "cu_seqlens_q", ""}, config);
       }});
}

}  // namespace tilejit::ops
