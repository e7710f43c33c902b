// Correctness harness for the prefill op: random packed q/k/v for sequences of the given
// lengths (cu_seqlens built from them), a few NaN tokens past the last sequence in every input,
// output and LSE poisoned with NaN, compared with the float64 reference of
// reference_attention.h computed from each sequence's un-packed q/k/v.
#pragma once

#include <vector>

#include "compiler/ops/prefill/reference_attention.h"

namespace tilejit {

struct PrefillProblem {
  int64_t numQHeads = 4;
  std::vector<int64_t> qLens = {1, 40};
  std::vector<int64_t> kLens = {1, 40};  // empty: the q lengths
  int64_t paddingTokens = 3;  // NaN tokens past the last sequence (q, k, v, output, lse)
  double queryStddev = 2.0;
  double softCapValue = 4.0;  // used where the op has soft_cap=1
  int64_t window = 0;
  uint64_t seed = 1;
  int iterations = 0;  // > 0: also time the op
};

// Runs `op` (prefill's arguments, by name) on a random problem.
absl::StatusOr<AttentionCheck> checkPrefillOp(Device& device, const Op& op,
                                              const PrefillProblem& problem);

}  // namespace tilejit
