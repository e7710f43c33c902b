// vLLM's shared DSA candidate mask (apply_candidate_mask in
// vllm/model_executor/kernels/attention/dsa/candidate_blocks.py @ 67017de0: its flags kernel,
// then its mask kernel), on the host over 32-bit words, for the op's reference and tests.
// Like the shared kernel it writes every column of a row; the op must agree within [0, end)
// and leave the rest alone.
#pragma once

#include <cstdint>
#include <vector>

namespace tilejit::reference {

inline constexpr uint32_t kMaskedBits = 0xFF800000u;  // fp32 -inf

struct CandidateMaskProblem {
  int64_t rows = 0, width = 0, blockSize = 1, rowRepeat = 1, numCandidates = 0;
  bool hasStarts = false;
  std::vector<int32_t> starts, ends;  // [rows / rowRepeat] (starts unread without hasStarts)
  std::vector<int32_t> candidates;    // [rows, numCandidates], -1 = padding
};

// The shared kernel's result on dense logits [rows, width].
inline std::vector<uint32_t> sharedCandidateMask(const CandidateMaskProblem& p,
                                                 std::vector<uint32_t> logits) {
  const int64_t nblocks = (p.width + p.blockSize - 1) / p.blockSize;
  for (int64_t row = 0; row < p.rows; ++row) {
    const int64_t bound = row / p.rowRepeat;
    const int64_t start = p.hasStarts ? p.starts[size_t(bound)] : 0;
    const int64_t end = p.ends[size_t(bound)];
    std::vector<uint8_t> flags(size_t(nblocks + 1), 0);
    for (int64_t k = 0; k < p.numCandidates; ++k) {
      int64_t block = p.candidates[size_t(row * p.numCandidates + k)];
      if (start + block * p.blockSize >= p.width) block = nblocks;  // the packed-column clamp
      if (block >= 0) flags[size_t(block)] = 1;
    }
    const bool edge = flags[size_t(nblocks)] != 0;
    for (int64_t col = 0; col < p.width; ++col) {
      const bool valid = col >= start && col < end;
      // Triton's // on integers truncates toward zero, as C++'s / does.
      const bool kept = valid && flags[size_t((col - start) / p.blockSize)] != 0;
      const bool keep = kept || (col == p.width - 1 && edge);
      if (!(valid && keep)) logits[size_t(row * p.width + col)] = kMaskedBits;
    }
  }
  return logits;
}

}  // namespace tilejit::reference
