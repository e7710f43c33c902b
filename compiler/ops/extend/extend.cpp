// The op "extend": new tokens against their sequence's paged cache (templates/extend.mlir), the
// cache holding the new tokens' K/V too (the last q_len of seq_lens[s]). query and output are
// [heads, tokens, head_size] views of packed [tokens, heads, head_size] tensors; lse is
// [q heads, q tokens]; the caches are paged_decode's (either layout).
#include "compiler/ops/prefill/attention_op.h"

namespace tilejit::ops {

absl::Status register_extend(OpRegistry& registry) {
  std::vector<OpParameter> parameters = attentionParameters();
  parameters.push_back({"block_size", OpParameterKind::kInt, ParameterValue(int64_t(16)), {},
                        "tokens per cache block"});
  parameters.push_back({"kv_layout", OpParameterKind::kEnum, ParameterValue::string("standard"),
                        {"standard", "shuffled"}, "the caches' layout (paged_decode's)"});
  return registry.add(
      {"extend",
       "new tokens attending to their sequence's paged cache (causal among themselves), one "
       "pass through the block table, returning the LSE",
       OpSchema("extend", std::move(parameters)),
       {"extend"},
       [](JitCompiler& jit, Device& device, const OpConfig& config) {
         // The kv heads are dim 2 of a standard cache [blocks, block_size, heads, d], dim 1 of
         // a shuffled one [blocks, heads, ...].
         const int heads = config.text("kv_layout") == "shuffled" ? 1 : 2;
         return createAttentionOp(jit, device,
                                  {"extend", "key_cache", heads, "cu_seqlens_q", "seq_lens"},
                                  config);
       }});
}

}  // namespace tilejit::ops
