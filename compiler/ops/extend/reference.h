// Correctness harness for the extend op: per sequence a context of cached tokens and q_len new
// ones, all of their K/V random and scattered into paged caches (either layout) through a
// shuffled block table; NaN in every unused block, in the slots past each sequence's end and
// in blocks below padBlocks; NaN query tokens past the last sequence; output and LSE poisoned;
// compared with the float64 reference of reference_attention.h from the un-paged K/V.
#pragma once

#include <vector>

#include "compiler/ops/prefill/reference_attention.h"

namespace tilejit {

struct ExtendProblem {
  int64_t numQHeads = 4;
  std::vector<int64_t> qLens = {1, 40};        // new tokens per sequence
  std::vector<int64_t> contextLens = {0, 70};  // cached tokens before them
  int64_t padBlocks = 0;      // unused (NaN) blocks below the sequences' own
  int64_t paddingTokens = 3;  // NaN query tokens past the last sequence
  double queryStddev = 2.0;
  double softCapValue = 4.0;  // used where the op has soft_cap=1
  int64_t window = 0;
  uint64_t seed = 1;
  int iterations = 0;  // > 0: also time the op
};

// Runs `op` (extend's arguments, by name) on a random problem.
absl::StatusOr<AttentionCheck> checkExtendOp(Device& device, const Op& op,
                                             const ExtendProblem& problem);

}  // namespace tilejit
