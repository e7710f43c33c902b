// The op "merge_attn_states": one kernel merging two attention states by their LSE.
#include "compiler/ops/op.h"

namespace tilejit::ops {

absl::Status register_merge_attn_states(OpRegistry& registry) {
  // Unset parameters: the target's tuning, then the template's default.
  auto unset = [](std::string name, OpParameterKind kind = OpParameterKind::kInt) {
    return OpParameter{std::move(name), kind, std::nullopt, {}, ""};
  };
  OpSchema schema("merge_attn_states",
                  {unset("dtype", OpParameterKind::kDType), unset("head_size"),
                   unset("heads_per_program"), unset("num_warps"), unset("min_blocks_per_sm")});
  return registry.add({"merge_attn_states",
                       "merge two attention states (output and LSE) into one",
                       std::move(schema),
                       {"merge_attn_states"},
                       [](JitCompiler& jit, Device& device, const OpConfig& config) {
                         return createSingleKernelOp(jit, device, "merge_attn_states", config);
                       }});
}

}  // namespace tilejit::ops
