// Paged decode's C++ API lives in its op folder; this header keeps the old include path and
// declares the tuning rules the op reads.
#pragma once

#include <optional>

#include "compiler/ops/paged_decode/paged_decode.h"
#include "compiler/targets/target_description.h"

namespace tilejit {

// The measured tiling for a grid and head size, if the target's table has a row for it.
std::optional<DecodeTiling> chooseDecodeTiling(const TargetDescription& target, int64_t programs,
                                               int64_t maxModelLen, int64_t headSize);

// The merge's heads per program from the target's tuning for `pairs` (sequence, q head)
// pairs merged `step` partitions at a time; nullopt where the target's rule leaves the
// template's default (small merges, or no rule).
std::optional<int64_t> mergeHeadsPerProgram(const TargetDescription& target, int64_t pairs,
                                            int64_t step);

}  // namespace tilejit
