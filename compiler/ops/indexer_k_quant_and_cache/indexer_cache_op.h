// The ops over the DSA indexer cache (indexer_k_quant_and_cache, gather_indexer_k_quant_cache):
// one kernel each, taking the cache twice (fp8 bytes and float32 words, flattened per block).
// Before each launch the op checks that both views are the same cache in vLLM's layout for the
// bound block size: a cache of another block size or layout would be read and written at the
// wrong places, not rejected by the kernel.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/op.h"

namespace tilejit::ops {

// Registers `kernel` as an op of that name over the indexer cache.
absl::Status addIndexerCacheOp(OpRegistry& registry, const std::string& kernel,
                               std::string summary, std::vector<OpParameter> parameters);

}  // namespace tilejit::ops
