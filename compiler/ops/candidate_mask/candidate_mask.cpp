// The op "candidate_mask": one kernel masking the DSA decode logits to each row's candidate
// blocks within its live columns (templates/candidate_mask.mlir says the exact rule).
#include "compiler/ops/op.h"

namespace tilejit::ops {

absl::Status register_candidate_mask(OpRegistry& registry) {
  return addSingleKernelOp(
      registry, "candidate_mask",
      "mask DSA decode logits to each row's candidate blocks in [start, end), leaving columns "
      "past the end untouched",
      {tunedParameter("block_size"), tunedParameter("row_repeat"), tunedParameter("has_starts"),
       tunedParameter("tile"), tunedParameter("grid_cols"), tunedParameter("num_warps")});
}

}  // namespace tilejit::ops
