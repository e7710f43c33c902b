// What the runtime needs to know about one compiled kernel, without MLIR: its signature (to
// check arguments), its launch contract (grid expressions over shape symbols, threads), and
// its resource usage. Written by the compiler beside every code object (cache entry, bundle)
// as JSON; read back by the runtime.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "support/dtype.h"

namespace tilejit {

// One dimension of a global-memory view: either a shape symbol bound at launch ("num_tokens")
// or an extent fixed by specialization (head_size = 128 -> value 128, symbol empty).
struct DimSpec {
  std::string symbol;
  int64_t value = -1;
  bool isSymbolic() const { return !symbol.empty(); }
};

struct ArgSpec {
  enum class Kind { kView, kScalar };
  std::string name;
  Kind kind = Kind::kView;
  DType dtype = DType::kF32;
  std::vector<DimSpec> dims;  // views only; row-major, innermost last
  bool contiguous = false;    // views: every stride must be the dense row-major one
  bool writable = false;      // views: the kernel stores into it
};

struct ResourceUsage {
  int64_t registers = -1;  // per thread (NVIDIA) / VGPRs (AMD); -1 when not reported
  int64_t spillStores = 0;
  int64_t spillLoads = 0;
  int64_t staticSharedBytes = 0;
  int64_t localBytes = 0;  // stack frame / scratch per thread
};

struct KernelMetadata {
  std::string templateName;   // "merge_attn_states"
  std::string entry;          // symbol of the kernel in the code object
  std::string target;         // "sm_90", "gfx942", "host"
  std::string backend;        // "cuda", "hip", "cpu"
  std::vector<std::pair<std::string, std::string>> parameters;  // bound values, for display
  std::vector<ArgSpec> args;  // in kernel-ABI order
  // Grid expressions over shape symbols and integer constants, e.g. "cdiv(num_tokens, 4)".
  // Grammar in runtime/grid_expression.h.
  std::array<std::string, 3> grid = {"1", "1", "1"};
  int64_t threadsPerProgram = 1;
  int64_t dynamicSharedBytes = 0;
  // Views whose innermost extent in bytes is a multiple of this must have base pointers and
  // outer strides aligned to it (the device library issues vector loads of this width).
  int64_t vectorBytes = 16;
  // The kernel waits for the previous kernel's writes itself (tj.wait_previous_kernel), so the
  // runtime may launch it before that kernel ends (programmatic dependent launch).
  bool waitsForPreviousKernel = false;
  // Programs per thread-block cluster along grid axis 2, compiled into the kernel (the
  // reserved parameter cluster_size; 1: none): the grid's z must be a multiple of it.
  int64_t clusterPrograms = 1;
  ResourceUsage resources;
};

std::string serializeMetadata(const KernelMetadata& metadata);  // JSON text
absl::StatusOr<KernelMetadata> parseMetadata(std::string_view json);

}  // namespace tilejit
