// Correctness harness for paged decode (both kernels through the op): random K/V per
// sequence scattered into a paged cache through a shuffled, non-contiguous block table; NaN in
// every unused block and in the unwritten tail of every last block; output and workspace
// poisoned; compared with a float64 reference computed from the un-paged K/V.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/paged_decode.h"
#include "runtime/device.h"

namespace tilejit {

struct DecodeProblem {
  int64_t numQHeads = 8;
  int64_t numKvHeads = 2;
  std::vector<int64_t> seqLens = {1, 17};
  int64_t maxModelLen = 0;  // 0: the longest sequence
  float softCapValue = 0;   // used when the config enables soft_cap
  int32_t slidingWindow = 0;
  uint64_t seed = 1;
  bool poisonTails = true;  // NaN in unused blocks and past each sequence's end
  int iterations = 0;       // > 0: also time the pair of launches (median, device events)
};

struct DecodeCheck {
  bool passed = false;
  double relativeLinf = 0;
  int64_t nanOutputs = 0;
  double tolerance = 0;
  std::string detail;
  double medianMs = 0;  // when timed
  double kvBytes = 0;   // K+V bytes of all sequences
  CompiledKernel compiled;  // the decode kernel's compile record (cache hit, times)
};

absl::StatusOr<DecodeCheck> checkPagedDecode(JitCompiler& jit, Device& device,
                                             const PagedDecodeConfig& config,
                                             const DecodeProblem& problem);
// The same through any op with paged decode's arguments and workspaces (by name), its config
// read from op.config().
absl::StatusOr<DecodeCheck> checkPagedDecodeOp(Device& device, const Op& op,
                                               const DecodeProblem& problem);

}  // namespace tilejit
