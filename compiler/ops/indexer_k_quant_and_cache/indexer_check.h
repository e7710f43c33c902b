// The DSA indexer cache on the host: the exact quantization (fp8 e4m3, round to nearest even,
// saturating; fp32 or ue8m0 scales), vLLM's cache layout, random problems over ragged
// sequences in shuffled blocks, and the checks of indexer_k_quant_and_cache and
// gather_indexer_k_quant_cache that their op references and the CPU / CUDA tests share.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"
#include "tools/harness/host_tensor.h"
#include "tools/harness/op_reference.h"

namespace tilejit::reference {

inline constexpr int64_t kIndexerHeadDim = 128;
// Bytes per token of vLLM's indexer cache: 128 fp8 values and one float32 scale.
inline constexpr int64_t kIndexerTokenBytes = kIndexerHeadDim + 4;

// The fp8 e4m3fn code nearest to `x` (ties to the even code), +-448 from 448 up, NaN -> 0x7f.
uint8_t fp8E4M3(float x);
// The scale of a row whose largest magnitude is `amax`: max(amax, 1e-4) / 448 in fp32, or
// with ue8m0 the smallest power of two at or above that.
float indexerScale(float amax, bool ue8m0);

struct IndexerProblem {
  int64_t blockSize = 1, numBlocks = 0, maxBlocksPerSeq = 0;
  bool ue8m0 = false;
  std::vector<int64_t> seqLens;
  std::vector<int32_t> blockTable;  // [seqs, maxBlocksPerSeq], shuffled blocks
  HostTensor k;                     // [rows, 128] bf16: every sequence's tokens and padding, shuffled
  std::vector<int64_t> slots;       // per row of k; -1 = padding
  std::vector<int64_t> rowOfToken;  // row of k holding token j of the batch (cu_seq_lens order)
};

// Sequences of `seqLens` tokens, rows of widely varying magnitude (some below the 1e-4 floor),
// in shuffled blocks of a cache holding `spareBlocks` blocks no sequence owns besides.
IndexerProblem makeIndexerProblem(int64_t blockSize, bool ue8m0, std::vector<int64_t> seqLens,
                                  std::mt19937_64& rng, int64_t spareBlocks = 2);
// The cache after quantizing every kept row: bytes of [numBlocks, blockSize, 132], every byte
// no row writes left 0xFF (fp8 NaN; a scale of four such bytes is a NaN too).
std::vector<uint8_t> referenceCache(const IndexerProblem& problem);

// The bound value of an integer or string parameter of the op's first kernel ("" if none).
std::string boundParameter(const Op& op, std::string_view name);
int64_t boundInteger(const Op& op, std::string_view name, int64_t fallback);

struct IndexerVerdict {
  bool passed = false;
  int64_t wrong = 0, compared = 0;
  std::string detail;
  double medianMs = 0;  // of `iterations` timed runs after the checked one (0: none)
};
// The median milliseconds of `iterations` runs of `work` after 3 warm-up ones (0 if none).
absl::StatusOr<double> medianMs(Device& device, const std::function<absl::Status()>& work,
                                int iterations);
// Runs indexer_k_quant_and_cache on a NaN-filled cache and compares every cache byte.
absl::StatusOr<IndexerVerdict> checkQuantAndCache(const Op& op, Device& device,
                                                  const IndexerProblem& problem, int iterations = 0);
// Runs gather_indexer_k_quant_cache on the reference cache into poisoned outputs (rows past the
// batch included) and compares them with the quantized un-paged rows.
absl::StatusOr<IndexerVerdict> checkGather(const Op& op, Device& device,
                                           const IndexerProblem& problem, int iterations = 0);

// The op reference of one indexer kernel: `check` on ragged sequences around the op's block
// size (scale format as bound); `bytesPerToken` that the kernel must move at least.
using IndexerCheck = absl::StatusOr<IndexerVerdict> (*)(const Op&, Device&, const IndexerProblem&, int);
OpCheck indexerOpCheck(IndexerCheck check, double bytesPerToken);

// The cache as the kernels take it, flattened per block: fp8 bytes (kF8E4M3FN) or float32
// words (kF32).
TensorArg cacheViewArg(void* data, const IndexerProblem& problem, DType dtype);

}  // namespace tilejit::reference
