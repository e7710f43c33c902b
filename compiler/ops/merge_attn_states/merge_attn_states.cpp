// The op "merge_attn_states": one kernel merging two attention states by their LSE.
#include "compiler/ops/op.h"

namespace tilejit::ops {

absl::Status register_merge_attn_states(OpRegistry& registry) {
  return addSingleKernelOp(registry, "merge_attn_states",
                           "merge two attention states (output and LSE) into one",
                           {tunedParameter("dtype", OpParameterKind::kDType),
                            tunedParameter("head_size"), tunedParameter("heads_per_program"),
                            tunedParameter("num_warps"), tunedParameter("min_blocks_per_sm")});
}

}  // namespace tilejit::ops
