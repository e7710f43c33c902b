// Correctness harness for MLA decode (both kernels through the op): random latents per
// sequence scattered into a paged cache [num_blocks, block_size, 1, 576] through a shuffled
// block table; NaN in every unused block and past each sequence's end (table entries past the
// end point at NaN blocks); output and workspaces poisoned; compared with a float64 reference
// from the un-paged latents (K = all 576 columns, V = the first 512; query token i of a
// sequence of length L attends to its first L - q_len + i + 1 latents).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"
#include "runtime/device.h"

namespace tilejit {

struct MlaProblem {
  int64_t numQHeads = 16;
  int64_t qLen = 1;  // query tokens per sequence (the config's q_len)
  std::vector<int64_t> seqLens = {1, 65};
  int64_t maxModelLen = 0;  // 0: the longest sequence (sizes the partial workspaces)
  // Blocks below this id are never used (NaN): the sequences' latents sit past them, so a
  // pad of 2^31 / (block_size x 576) blocks puts every read past 2^31 elements.
  int64_t padBlocks = 0;
  uint64_t seed = 1;
  int iterations = 0;  // > 0: also time the op (median of device events)
};

struct MlaCheck {
  bool passed = false;
  double relativeLinf = 0;
  int64_t nanOutputs = 0;
  double tolerance = 0;
  std::string detail;
  double medianMs = 0;
  double latentBytes = 0;  // the latents of all sequences: the bytes the op must read
  CompiledKernel compiled;
};

// Runs `op` (mla_decode's arguments and workspaces, by name) on a random problem.
absl::StatusOr<MlaCheck> checkMlaDecodeOp(Device& device, const Op& op, const MlaProblem& problem);

}  // namespace tilejit
