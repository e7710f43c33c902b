// Every target tilejit compiles for, as data. This is the only place target names are parsed:
// templates and passes ask here. Tuning constants live in per-target files (compiler/tuning).
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
  // Programs one thread-block cluster may hold (the portable maximum; 1: no clusters).
  int64_t maxClusterPrograms = 1;

  bool isGpu() const { return vendor != Vendor::kHost; }
  // The tuning value under `key` ("<template>.<parameter>"), if the target has one: the
  // target's tuning file through compiler/tuning (tunedValue), which defines this.
  std::optional<int64_t> tuned(const std::string& key) const;
};

// Looks a target up by name; the error lists the known names.
absl::StatusOr<const TargetDescription*> lookupTarget(std::string_view name);
const std::vector<TargetDescription>& allTargets();

}  // namespace tilejit
