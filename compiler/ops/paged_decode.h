// Paged decode as one call: the split-K kernel (paged_decode) and the partition merge
// (paged_decode_reduce) specialized together, launched back to back on the caller's stream;
// with the tuning merge_in_kernel=1 or cluster_size > 1 (the partitions merge through a
// thread-block cluster, sm_90), or where partial_out has one partition (max_model_len within
// partition_size), the split-K kernel writes every output and runs alone. The
// workspaces (partials, arrival counters) are the caller's, so a launch never allocates and
// can be captured in a CUDA graph.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "compiler/tuning/tuning_table.h"

namespace tilejit {

struct PagedDecodeConfig {
  std::string dtype = "bf16";
  int64_t headSize = 128;
  int64_t blockSize = 16;
  int64_t gqaRatio = 1;
  std::string kvLayout = "standard";
  bool softCap = false;
  bool alibi = false;
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
};

class PagedDecode {
 public:
  static absl::StatusOr<PagedDecode> create(JitCompiler& jit, Device& device,
                                            const PagedDecodeConfig& config);
  // max_partitions for contexts up to maxModelLen.
  int64_t maxPartitions(int64_t maxModelLen) const;
  int64_t partitionSize() const { return partitionSize_; }
  absl::Status operator()(const PagedDecodeArgs& args, Stream stream = nullptr) const;
  const LoadedKernel& decodeKernel() const { return *decode_; }
  // The merge kernel; null when the split-K kernel merges itself (merge_in_kernel=1,
  // cluster_size > 1).
  const LoadedKernel* reduceKernel() const { return reduce_; }
  // How the decode kernel was obtained (cache hit, compile times).
  const CompiledKernel& decodeCompile() const { return decodeInfo_; }

 private:
  Device* device_ = nullptr;
  const LoadedKernel* decode_ = nullptr;
  const LoadedKernel* reduce_ = nullptr;
  int64_t partitionSize_ = 0;
  int64_t clusterSize_ = 1;  // > 1: the split-K kernel merges through thread-block clusters
  CompiledKernel decodeInfo_;
};

}  // namespace tilejit
