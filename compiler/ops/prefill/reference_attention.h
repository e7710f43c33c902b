// The float64 reference of varlen attention that the prefill and extend checks share: per
// sequence, un-packed (and for extend un-paged) K/V as stored, the masks of templates/prefill.mlir
// (bottom-right causal, sliding window, soft cap, ALiBi), and the comparison of the packed
// output and LSE with it, tokens past the last sequence required untouched (still NaN).
#pragma once

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"
#include "tools/harness/host_tensor.h"
#include "tools/harness/op_reference.h"

namespace tilejit {

struct AttentionMasks {
  double scale = 0.125;
  bool causal = true;
  bool softCap = false;
  double softCapValue = 0;
  bool alibi = false;
  int64_t window = 0;  // 0: every key
};

struct AttentionCase {
  std::string dtype = "bf16";
  int64_t numQHeads = 0, gqaRatio = 1, headSize = 0, vHeadSize = 0;
  std::vector<int64_t> qStarts;                   // cu_seqlens_q: num_seqs + 1 starts
  std::vector<std::vector<double>> keys, values;  // per sequence: [k_len, kv heads, head size]
  std::vector<double> slopes;                     // ALiBi, per q head
  AttentionMasks masks;
};

struct AttentionCheck {
  bool passed = false;
  double relativeLinf = 0;
  double lseError = 0;  // largest |lse - reference| over rows that see a key
  int64_t nanOutputs = 0;
  double tolerance = 0;
  std::string detail;
  double medianMs = 0;
  double flops = 0;  // 2 (head_size + v_head_size) per (q row, q head, key seen)
  CompiledKernel compiled;
};

// The op's `output` ([q tokens, q heads, v head size], packed) and `lse` ([q heads, q tokens])
// against the reference from `query` ([q tokens, q heads, head size], packed) and the case.
AttentionCheck checkAttentionOutputs(const AttentionCase& problem, const HostTensor& query,
                                     const HostTensor& output, const HostTensor& lse);

// What both checks draw the same way: dtype, heads and masks from the op's config.
struct AttentionDraw {
  int64_t numQHeads = 0;
  int64_t qTokens = 0;        // every sequence's new tokens plus the padding
  int64_t paddingTokens = 0;  // NaN query tokens past the last sequence
  double queryStddev = 2.0;   // a larger query makes the soft cap bite
  double softCapValue = 0;
  int64_t window = 0;
};

// The query side of a check: packed query (NaN past the last sequence), output and LSE
// poisoned, ALiBi slopes; `c` gets dtype, heads, slopes and masks (its qStarts, keys and values
// are the caller's).
struct QuerySide {
  HostTensor query, output, lse, slopes;
};
absl::StatusOr<QuerySide> drawQuerySide(const OpConfig& config, const AttentionDraw& draw,
                                        std::mt19937_64& rng, AttentionCase& c);

// Uploads the query side, runs `op` with it and `others` (the key side, by name), compares
// with the reference and, for iterations > 0, times the op.
absl::StatusOr<AttentionCheck> runAttentionCheck(Device& device, const Op& op,
                                                 const AttentionCase& c, QuerySide& side,
                                                 const std::map<std::string, KernelArg>& others,
                                                 int iterations);

// Normal values of `stddev`.
void fillScaledNormal(HostTensor& tensor, std::mt19937_64& rng, double stddev);

// A [tokens, heads, d] packed tensor as the kernels' [heads, tokens, d] view (no copy).
TensorArg headsMajor(TensorArg packed);

// `tilejit run`'s size `name` (--shape name=N), else `fallback`.
int64_t sizeOr(const OpCheckOptions& options, const char* name, int64_t fallback);

// The registry's report of a check that began at `began` (load ms: the whole check).
OpCheckReport attentionReport(const AttentionCheck& check,
                              std::chrono::steady_clock::time_point began);

}  // namespace tilejit
