// Running the candidate_mask op on a given problem and judging it against vLLM's shared mask
// (mask_reference.h): the op's reference check and the CPU / CUDA tests share these.
#pragma once

#include <memory>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/candidate_mask/mask_reference.h"
#include "compiler/ops/op.h"
#include "tools/harness/host_tensor.h"

namespace tilejit::reference {

// The problem's block_size, row_repeat and has_starts as the op's kernel was bound.
absl::Status bindMaskParameters(const Op& op, CandidateMaskProblem& problem);

// The op's device arguments: logits [rows, width] words with column stride `columnStride`
// (the words between columns belong to someone else and must stay), starts, ends, candidates.
class MaskBuffers {
 public:
  static absl::StatusOr<std::unique_ptr<MaskBuffers>> create(Device& device,
                                                             const CandidateMaskProblem& problem,
                                                             int64_t columnStride);
  // Uploads `storage` (rows * width * columnStride words) and the problem's starts and ends.
  absl::Status reset(const std::vector<uint32_t>& storage, const CandidateMaskProblem& problem);
  absl::StatusOr<std::vector<uint32_t>> logits() const;
  std::vector<KernelArg> args() const;
  int64_t storageWords() const { return rows_ * width_ * stride_; }

 private:
  MaskBuffers(int64_t rows, int64_t width, int64_t stride) : rows_(rows), width_(width), stride_(stride) {}
  int64_t rows_, width_, stride_;
  std::unique_ptr<DeviceTensor> logits_, starts_, ends_, candidates_;
};

struct MaskVerdict {
  bool passed = false;
  int64_t wrongInside = 0;    // columns of [0, end) that differ from the shared kernel's
  int64_t writtenOutside = 0;  // words past a row's end or between strided columns that changed
  int64_t compared = 0;
  std::string detail;
  double medianMs = 0;  // of `iterations` timed runs after the checked one (0: none)
};

// `before` and `after`: the logits storage around one run of the op.
MaskVerdict judgeCandidateMask(const CandidateMaskProblem& problem, int64_t columnStride,
                               const std::vector<uint32_t>& before,
                               const std::vector<uint32_t>& after);

// Random words for the logits storage (NaN patterns included: compared as bits).
std::vector<uint32_t> randomWords(int64_t count, std::mt19937_64& rng);

// Runs the op once on fresh buffers and judges it.
absl::StatusOr<MaskVerdict> runCandidateMask(const Op& op, Device& device,
                                             const CandidateMaskProblem& problem,
                                             int64_t columnStride, uint64_t seed,
                                             int iterations = 0);

}  // namespace tilejit::reference
