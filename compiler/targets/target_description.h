// Every target tilejit compiles for, as data. This is the only place target names are parsed
// and the only home of tuning constants (DESIGN principle 2): templates and passes ask here.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

enum class Vendor { kNvidia, kAmd, kHost };

// Which lane and which element of its fragment hold each element of one operand tile, as
// linear bases: bit b of the element index adds registerBases[b] = {row, col}, bit b of the
// lane id adds laneBases[b] (XOR; a zero basis is declared replication). The same data as the
// dialect's #tj.fragment (dialects/tj/TjAttrs.td).
struct FragmentOwnership {
  std::vector<std::array<int64_t, 2>> registerBases;
  std::vector<std::array<int64_t, 2>> laneBases;
};

// A matrix instruction: its shape (M x N x K), the operand type it takes, the lanes that
// execute it and who holds what of A [M, K], B [K, N] and C [M, N]. An operand without bases
// is read from shared memory (wgmma's B).
struct MatrixInstruction {
  std::string name;  // "mma.sync.m16n8k16", "mfma_f32_16x16x16bf16", "wmma_f32_16x16x16_bf16"
  int64_t m, n, k;
  std::string operandType;  // "f16", "bf16"
  int64_t lanes = 32;       // a warp, a wave64 / wave32, a warpgroup (128)
  FragmentOwnership a, b, acc;
};

// wgmma.m64nNk16 (sm_90, a warpgroup of 128 lanes) for N in 8, 16, ..., 256: A and the
// accumulator D; B comes from shared memory. Not listed on sm_90: the CUDA library uses mma.sync.
MatrixInstruction wgmmaInstruction(int64_t n, const std::string& operandType);

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
  std::string backend;  // device-library backend: "cuda", "hip", "cpu"
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
