// Paged decode as one call (the op "paged_decode"): the split-K kernel (paged_decode) and the
// partition merge (paged_decode_reduce) specialized together, launched back to back on the
// caller's stream;
// with the tuning merge_in_kernel=1 or cluster_size > 1 (the partitions merge through a
// thread-block cluster, sm_90), or where partial_out has one partition (max_model_len within
// partition_size), the split-K kernel writes every output and runs alone. The
// workspaces (partials, arrival counters) are the caller's, so a launch never allocates and
// can be captured in a CUDA graph.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "compiler/ops/op.h"

namespace tilejit {

struct PagedDecodeConfig {
  std::string dtype = "bf16";
  int64_t headSize = 128;
  int64_t blockSize = 16;
  int64_t gqaRatio = 1;
  std::string kvLayout = "standard";
  bool softCap = false;
  bool alibi = false;
  // Attention sinks: PagedDecodeArgs::sinks holds one logit per q head.
  bool sinks = false;
  // The caches' element type: "auto" (dtype) or fp8 ("fp8_e4m3" = e4m3fn, "fp8_e5m2"), read as
  // code x scale with PagedDecodeArgs::kScales / vScales per "per_tensor" ([1]) or "per_head"
  // ([num_kv_heads]).
  std::string kvCacheDtype = "auto";
  std::string kvScale = "per_tensor";
  // Tiling; unset ones come from the target's measured decode table (when the grid below is
  // known), then its tuning table.
  // q_rows, block_n, partition_size, num_warps, merge_in_kernel, cluster_size (with a known
  // max_model_len that makes exactly that many partitions), ...; "reduce_<name>"
  // (reduce_num_warps, reduce_partitions_per_step) sets the merge kernel's parameter <name>
  // (no merge kernel with merge_in_kernel=1: those are then unused).
  std::map<std::string, std::string> tuning;
  // The grid the op will serve (num_seqs x num_kv_heads, and max_model_len), known when an
  // engine captures a graph per batch size; 0 = unknown.
  int64_t numSeqs = 0;
  int64_t numKvHeads = 0;
  int64_t maxModelLen = 0;
  // Template files replacing the shipped ones by name (kernel authors, mutation tests).
  std::map<std::string, std::string> templateOverrides;
};

struct PagedDecodeArgs {
  TensorArg output;        // [num_seqs, num_q_heads, head_size]
  TensorArg query;         // [num_seqs, num_q_heads, head_size]
  TensorArg keyCache;      // layout per config
  TensorArg valueCache;
  TensorArg blockTables;   // [num_seqs, max_blocks_per_seq] i32
  TensorArg seqLens;       // [num_seqs] i32
  TensorArg alibiSlopes;   // [num_q_heads] f32 (read only with alibi)
  TensorArg partialOut;    // [num_seqs, max_partitions, num_q_heads, head_size] f32
  TensorArg partialLse;    // [num_seqs, max_partitions, num_q_heads] f32
  // [num_seqs, num_kv_heads] i32, zeroed before the first call (with merge_in_kernel the
  // decode counts its partitions in there and leaves it zeroed again; else never touched).
  TensorArg arrivals;
  float scale = 1.0f;
  float softCapValue = 0.0f;
  int32_t slidingWindow = 0;  // 0 = attend to the whole context
  // (Last, so that positional initializers of the fields above stay valid.)
  // [num_q_heads] f32 sink logits (read only with sinks; left unset without them, the launch
  // passes partial_lse's first row in its place: never read).
  TensorArg sinks;
  // An fp8 cache's scales, f32: [1] (per_tensor) or [num_kv_heads] (per_head); unread (and
  // may be left unset) for a 16-bit cache.
  TensorArg kScales;
  TensorArg vScales;
};

// The op's spec, built once from its config and the target's tuning.
struct PagedDecodeSpec {
  ParameterMap decode;  // the split-K kernel's parameters
  ParameterMap reduce;  // the merge kernel's (none launched when mergesItself)
  bool mergesItself = false;  // merge_in_kernel=1 or cluster_size > 1
  int64_t partitionSize = 0;  // 0: neither given nor tuned (the specializer says so)
  int64_t clusterSize = 1;
  int64_t maxModelLen = 0;
};

// The registered op "paged_decode": arguments in the split-K kernel's order (output,
// partial_out, partial_lse, query, key_cache, value_cache, block_tables, seq_lens,
// alibi_slopes, sinks, k_scales, v_scales, arrivals, scale, soft_cap_value, sliding_window); workspaces partial_out,
// partial_lse (sizes num_seqs, num_kv_heads, max_model_len) and arrivals (zeroed once).
class PagedDecodeOp final : public Op {
 public:
  static absl::StatusOr<std::unique_ptr<PagedDecodeOp>> create(JitCompiler& jit, Device& device,
                                                               const OpConfig& config);
  const PagedDecodeSpec& spec() const { return spec_; }
  int64_t maxPartitions(int64_t maxModelLen) const;
  const LoadedKernel& decodeKernel() const { return *launches_.front().kernel; }
  const LoadedKernel* reduceKernel() const {
    return launches_.size() > 1 ? launches_[1].kernel : nullptr;
  }

 protected:
  absl::Status checkArguments(absl::Span<const KernelArg> args) const override;

 private:
  PagedDecodeSpec spec_;
};

// The op's schema (op parameters, then the kernels' tiling: "reduce_<name>" for the merge).
const OpSchema& pagedDecodeSchema();
// A C++ config as the op's typed config.
absl::StatusOr<OpConfig> pagedDecodeOpConfig(const PagedDecodeConfig& config);

class PagedDecode {
 public:
  static absl::StatusOr<PagedDecode> create(JitCompiler& jit, Device& device,
                                            const PagedDecodeConfig& config);
  static absl::StatusOr<PagedDecode> create(JitCompiler& jit, Device& device,
                                            const OpConfig& config);
  // max_partitions for contexts up to maxModelLen.
  int64_t maxPartitions(int64_t maxModelLen) const { return op_->maxPartitions(maxModelLen); }
  int64_t partitionSize() const { return op_->spec().partitionSize; }
  absl::Status operator()(const PagedDecodeArgs& args, Stream stream = nullptr) const;
  const LoadedKernel& decodeKernel() const { return op_->decodeKernel(); }
  // The merge kernel; null when the split-K kernel merges itself (merge_in_kernel=1,
  // cluster_size > 1).
  const LoadedKernel* reduceKernel() const { return op_->reduceKernel(); }
  // How the decode kernel was obtained (cache hit, compile times).
  const CompiledKernel& decodeCompile() const { return op_->compiled(); }
  const PagedDecodeOp& op() const { return *op_; }

 private:
  std::shared_ptr<const PagedDecodeOp> op_;
};

}  // namespace tilejit
