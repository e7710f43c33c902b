// The op "reshape_and_cache": one kernel writing new tokens' K/V into the paged cache.
#include "compiler/ops/op.h"

namespace tilejit::ops {

absl::Status register_reshape_and_cache(OpRegistry& registry) {
  return addSingleKernelOp(
      registry, "reshape_and_cache",
      "write new tokens' keys and values into their slots of the paged cache",
      {tunedParameter("dtype", OpParameterKind::kDType),
       // The cache's elements: dtype, or fp8 codes of value / scale (k_scales, v_scales).
       tunedParameter("kv_dtype", OpParameterKind::kEnum, {"f16", "bf16", "f8E4M3FN", "f8E5M2"}),
       tunedParameter("kv_scale", OpParameterKind::kEnum, {"per_tensor", "per_head"}),
       tunedParameter("head_size"),
       tunedParameter("block_size"),
       tunedParameter("kv_layout", OpParameterKind::kEnum, {"standard", "shuffled"}),
       tunedParameter("heads_per_tile"), tunedParameter("tokens_per_program"),
       tunedParameter("num_warps"), tunedParameter("min_blocks_per_sm")});
}

}  // namespace tilejit::ops
