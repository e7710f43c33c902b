// One compiler backend: everything the shared compiler asks of a family of targets (its
// target passes, memory model, device library, emitted prelude and toolchains). Each backend
// lives in its own folder under compiler/backends/ and is found through the registry
// (registry.h) by the `backend` name of a target description; shared code never names one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"
#include "compiler/toolchains/toolchain.h"
#include "runtime/kernel_metadata.h"

namespace mlir {
class OpPassManager;
class Operation;
}  // namespace mlir

namespace tilejit {

// What the shared emitter knows of a kernel when it asks the backend for the prelude.
struct KernelPrelude {
  mlir::Operation* kernel = nullptr;  // the specialized tj.kernel (after the target passes)
  const TargetDescription* target = nullptr;
  int64_t rowExchangeRows = 0;     // rows of the largest row reduction kept in registers
  int64_t dynamicSharedBytes = 0;  // the placed buffers, as the emitter lays them out
};

class CompilerBackend {
 public:
  virtual ~CompilerBackend() = default;

  // The name target descriptions carry in `backend` ("cuda"): the registry's key.
  virtual std::string_view name() const = 0;
  // The device library's folder under templates/device/; its toolchain gets it and common/.
  virtual std::string_view deviceLibraryFolder() const { return name(); }
  // The emitted translation unit's suffix (".cu"): the name toolchains show in diagnostics.
  virtual std::string_view sourceSuffix() const = 0;

  // The targets this backend compiles for, with their hardware facts (tuning is added by the
  // target table). Where they sit in allTargets(): backends of lower listing rank first.
  virtual std::vector<TargetDescription> targets() const = 0;
  virtual int listingRank() const = 0;

  // Passes run after the target-neutral clean-up: this backend's layouts and memory placement.
  virtual void addTargetPasses(mlir::OpPassManager& pm, const TargetDescription& target) const;
  // Makes this backend's target passes known to tj-opt (one at a time, on minimal inputs).
  virtual void registerPasses() const;

  // Memory model. The library scratch a kernel needs (the prelude's TJ_SMEM_BYTES; 0: none).
  virtual int64_t libraryScratchBytes(mlir::Operation* kernel) const;
  // Bytes the hardware keeps per resident program beside what the program itself asks for.
  virtual int64_t perProgramReservedBytes() const;
  // Programs of `bytesPerProgram` shared memory that fit on one multiprocessor: the most an
  // occupancy hint may ask for.
  virtual int64_t programsThatFit(const TargetDescription& target, int64_t bytesPerProgram) const;
  // Bytes of each buffer the placement passes put in shared memory / LDS, by buffer id, in the
  // library's layout of placed tiles (the emitter lays them out in id order). None by default:
  // a backend without placement passes.
  virtual std::map<int64_t, int64_t> placedBufferSizes(mlir::Operation* kernel) const;
  // Whether a cluster merge (tj.cluster_merge_store) stages its partial over the placed buffers
  // (dead by then) rather than in the library's scratch.
  virtual bool clusterMergeStagesInPlacedBuffers(mlir::Operation* merge) const;
  // Whether the library has fragment tiles (#tj.mma, #tj.mma_rows) of this matrix instruction.
  virtual bool libraryHasFragmentTiles(std::string_view instruction) const;

  // The `#define`s the emitted TU states before including tj/device.h (TJ_THREADS aside),
  // from the kernel and its reserved launch parameters; fills the launch metadata they decide
  // (clusterPrograms, dynamicSharedBytes). Fails on a reserved parameter the target refuses.
  // By default none: the reserved parameters are only checked (cluster_size 1 off clusters).
  virtual absl::StatusOr<std::string> emitPrelude(const KernelPrelude& kernel,
                                                  KernelMetadata& metadata) const;

  // Lines `--emit resources` adds below the shared report for `metadata.entry`, read from its
  // code object `binary` (facts ResourceUsage has no field for); by default none.
  virtual std::string resourceReport(const KernelMetadata& metadata,
                                     const std::string& binary) const;

  // The toolchain for one of this backend's targets. A backend with several (hiprtc, comgr,
  // in-process LLVM) picks by what is present and says what it tried when none is.
  virtual absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(
      const TargetDescription& target, const std::string& stateDirectory) const = 0;
};

// The reserved parameter `cluster_size`: programs per thread-block cluster along grid axis 2
// (1 or absent: none), checked against the target, and a kernel that merges through a
// cluster (tj.cluster_merge_store) against it. Every backend's prelude applies it.
absl::StatusOr<int64_t> clusterProgramsOf(mlir::Operation* kernel, const KernelMetadata& metadata,
                                          const TargetDescription& target);

}  // namespace tilejit
