// The tuning rules paged decode reads (the op itself: compiler/ops/paged_decode/).
#include "compiler/ops/paged_decode.h"

#include <algorithm>

namespace tilejit {

std::optional<DecodeTiling> chooseDecodeTiling(const TargetDescription& target, int64_t programs,
                                               int64_t maxModelLen, int64_t headSize) {
  for (const DecodeTiling& row : target.decodeTilings)
    if (programs <= row.maxPrograms && maxModelLen <= row.maxContext && headSize <= row.maxHeadSize)
      return row;
  return std::nullopt;
}

// Large merges take several heads per program, as long as heads x step tiles of [head_size]
// stay few enough for registers (8 heads x 16 partitions: 235 registers, 149 us where 2 x 16
// took 38 us; 64/8 heads, batch 64, 16K tokens in 1024-token partitions).
std::optional<int64_t> mergeHeadsPerProgram(const TargetDescription& target, int64_t pairs,
                                            int64_t step) {
  auto large = target.tuned("paged_decode_reduce.large_merge_pairs");
  auto heads = target.tuned("paged_decode_reduce.large_merge_heads_per_program");
  if (!large || !heads || pairs < *large) return std::nullopt;
  auto tiles = target.tuned("paged_decode_reduce.large_merge_tiles");
  if (!tiles) return *heads;
  return std::max<int64_t>(1, std::min(*heads, *tiles / std::max<int64_t>(1, step)));
}

}  // namespace tilejit
