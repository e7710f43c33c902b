// The op "indexer_k_quant_and_cache": one kernel quantizing the DSA indexer's new K rows to
// fp8 with per-group scales into their slots of the paged indexer cache (vLLM's layout).
#include "compiler/ops/indexer_k_quant_and_cache/indexer_cache_op.h"

namespace tilejit::ops {

absl::Status register_indexer_k_quant_and_cache(OpRegistry& registry) {
  return addIndexerCacheOp(
      registry, "indexer_k_quant_and_cache",
      "quantize new indexer K rows to fp8 e4m3 (one fp32 or ue8m0 scale per 128) into the "
      "paged indexer cache through slot_mapping",
      {tunedParameter("dtype", OpParameterKind::kDType), tunedParameter("block_size"),
       tunedParameter("scale_format", OpParameterKind::kEnum, {"float32", "ue8m0"}),
       tunedParameter("tokens_per_program"), tunedParameter("num_warps")});
}

}  // namespace tilejit::ops
