// The op "reshape_and_cache": one kernel writing new tokens' K/V into the paged cache.
#include "compiler/ops/op.h"

namespace tilejit::ops {

absl::Status register_reshape_and_cache(OpRegistry& registry) {
  // Unset parameters: the target's tuning, then the template's default.
  auto unset = [](std::string name, OpParameterKind kind = OpParameterKind::kInt,
                  std::vector<std::string> legal = {}) {
    return OpParameter{std::move(name), kind, std::nullopt, std::move(legal), ""};
  };
  OpSchema schema("reshape_and_cache",
                  {unset("dtype", OpParameterKind::kDType), unset("head_size"),
                   unset("block_size"),
                   unset("kv_layout", OpParameterKind::kEnum, {"standard", "shuffled"}),
                   unset("heads_per_tile"), unset("tokens_per_program"), unset("num_warps"),
                   unset("min_blocks_per_sm")});
  return registry.add({"reshape_and_cache",
                       "write new tokens' keys and values into their slots of the paged cache",
                       std::move(schema),
                       {"reshape_and_cache"},
                       [](JitCompiler& jit, Device& device, const OpConfig& config) {
                         return createSingleKernelOp(jit, device, "reshape_and_cache", config);
                       }});
}

}  // namespace tilejit::ops
