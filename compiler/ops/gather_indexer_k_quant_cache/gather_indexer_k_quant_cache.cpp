// The op "gather_indexer_k_quant_cache": one kernel gathering the fp8 indexer K rows and
// scales of a batch of sequences out of the paged indexer cache (chunked prefill).
#include "compiler/ops/indexer_k_quant_and_cache/indexer_cache_op.h"

namespace tilejit::ops {

absl::Status register_gather_indexer_k_quant_cache(OpRegistry& registry) {
  return addIndexerCacheOp(
      registry, "gather_indexer_k_quant_cache",
      "gather sequences' fp8 indexer K rows and scales from the paged indexer cache by block "
      "table and cu_seq_lens",
      {tunedParameter("block_size"), tunedParameter("tokens_per_program"),
       tunedParameter("num_warps")});
}

}  // namespace tilejit::ops
