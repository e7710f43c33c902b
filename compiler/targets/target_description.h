// Every target tilejit compiles for, as data. This is the only place target names are parsed
// and the only home of tuning constants (DESIGN principle 2): templates and passes ask here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

enum class Vendor { kNvidia, kAmd, kHost };

// A matrix instruction shape (M x N x K) with the operand type it takes.
struct MatrixInstruction {
  std::string name;  // "mma.sync.m16n8k16", "mfma_f32_16x16x16bf16", "wmma_f32_16x16x16_bf16"
  int64_t m, n, k;
  std::string operandType;  // "f16", "bf16"
};

// One row of a measured table of decode tilings: the best (partition size, block_n, prefetch
// depth, merge, warps) for grids of at most `maxPrograms` (sequences x kv heads), contexts of
// at most `maxContext` tokens and head sizes of at most `maxHeadSize` (larger heads need other
// tiles to fit shared memory).
struct DecodeTiling {
  int64_t maxPrograms;
  int64_t maxContext;
  int64_t maxHeadSize;
  int64_t partitionSize;
  int64_t blockN;
  int64_t prefetchDepth = 1;  // K/V tiles in flight ahead of the one in use
  // Merge the partitions of a sequence inside the split-K kernel through a thread-block
  // cluster, where the target has clusters and they fit in one (no merge kernel).
  bool clusterMerge = false;
  // Warps per program; 0 leaves the target's tuning value (paged_decode.num_warps).
  int64_t numWarps = 0;
};

struct TargetDescription {
  std::string name;     // "sm_90"
  std::string product;  // "H100/H200", for humans
  Vendor vendor;
  std::string backend;  // the compiler backend serving it (compiler/backends/<backend>/)
  int64_t warpSize;     // threads that execute in lockstep (1 on the host)
  int64_t multiprocessorCount;  // SMs / CUs (host: 0 = ask the OS)
  int64_t maxThreadsPerProgram;
  int64_t sharedBytesPerProgram;  // shared memory / LDS a program may use
  int64_t registersPerMultiprocessor;
  int64_t maxRegistersPerThread;
  std::vector<MatrixInstruction> matrixInstructions;
  // Tuning constants keyed "<template>.<parameter>", used when a kernel spec leaves the
  // parameter unset. Values come from measurements (bench/results) or, for targets we cannot
  // run, from the architecture's published limits; each entry's comment in the .cpp says which.
  std::map<std::string, int64_t> tuning;
  // Measured decode tilings, first matching row wins (bench/results); empty: use `tuning`.
  std::vector<DecodeTiling> decodeTilings;
  // Programs one thread-block cluster may hold (the portable maximum; 1: no clusters).
  int64_t maxClusterPrograms = 1;

  bool isGpu() const { return vendor != Vendor::kHost; }
  // The tuning value under `key` ("<template>.<parameter>"), if the target has one.
  std::optional<int64_t> tuned(const std::string& key) const {
    auto it = tuning.find(key);
    return it == tuning.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
};

// Looks a target up by name; the error lists the known names.
absl::StatusOr<const TargetDescription*> lookupTarget(std::string_view name);
const std::vector<TargetDescription>& allTargets();

}  // namespace tilejit
