// The CUDA backend: NVIDIA targets, the mma.sync / cp.async device library
// (templates/device/cuda), nvrtc.
#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "compiler/backends/backend.h"
#include "compiler/backends/cuda/matrix_instructions.h"
#include "compiler/backends/cuda/nvrtc_toolchain.h"
#include "compiler/backends/cuda/passes.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "support/status.h"

namespace tilejit {
namespace {

class CudaBackend : public CompilerBackend {
 public:
  std::string_view name() const override { return "cuda"; }
  std::string_view sourceSuffix() const override { return ".cu"; }
  int listingRank() const override { return 0; }

  std::vector<TargetDescription> targets() const override {
    const MatrixInstruction mmaF16 = mmaSyncInstruction("f16");
    const MatrixInstruction mmaBF16 = mmaSyncInstruction("bf16");
    std::vector<TargetDescription> targets;
    targets.push_back({"sm_80", "A100", Vendor::kNvidia, "cuda", 32, 108, 1024, 163 * 1024,
                       65536, 255, {mmaF16, mmaBF16}});
    targets.push_back({"sm_90", "H100/H200", Vendor::kNvidia, "cuda", 32, 132, 1024, 227 * 1024,
                       65536, 255, {mmaF16, mmaBF16}});
    targets.back().maxClusterPrograms = 8;  // sm_90: 8 portable (16 with an opt-in)
    return targets;
  }

  // Async copies into shared memory need cp.async (sm_80+, every CUDA target we have). Placed
  // tiles live in dynamic shared memory, so a program may use all the target allows.
  // Tensor-core accumulators keep the mma.sync fragment layout (the CUDA library's).
  // Layouts first: the placement's budget counts the library scratch, which mma tiles need
  // no room in.
  void addTargetPasses(mlir::OpPassManager& pm, const TargetDescription& target) const override {
    pm.addPass(createAssignMmaLayoutsPass());
    pm.addPass(createPlaceDotOperandsInSharedMemoryPass(target.sharedBytesPerProgram));
    // The layout pass gives each use of a shared constant tile its own copy; equal copies
    // merge again (each is a splat the C++ compiler instantiates, inlines and cleans up).
    pm.addPass(mlir::createCSEPass());
  }

  void registerPasses() const override {
    mlir::registerPass([] { return createPlaceDotOperandsInSharedMemoryPass(kDefaultSharedBytes); });
    mlir::registerPass([] { return createAssignMmaLayoutsPass(); });
  }

  // Scratch for the library's exchanges (reductions, broadcasts, dot staging), as large as
  // the largest tile in f32, so that a kernel of small tiles does not lose occupancy to it.
  int64_t libraryScratchBytes(mlir::Operation* kernel) const override {
    return ::tilejit::libraryScratchBytes(kernel);
  }

  // The 1 KB the hardware reserves per resident thread block.
  int64_t perProgramReservedBytes() const override { return 1024; }

  std::map<int64_t, int64_t> placedBufferSizes(mlir::Operation* kernel) const override {
    return ::tilejit::placedBufferSizes(kernel);
  }
  bool clusterMergeStagesInPlacedBuffers(mlir::Operation* merge) const override {
    return ::tilejit::clusterMergeStagesInPlacedBuffers(llvm::cast<mlir::tj::ClusterMergeStoreOp>(merge));
  }
  // tj/mma.h's MmaTile / MmaRows hold mma.sync m16n8k16 accumulator fragments.
  bool libraryHasFragmentTiles(std::string_view instruction) const override {
    return instruction == "mma.sync.m16n8k16";
  }

  absl::StatusOr<std::string> emitPrelude(const KernelPrelude& kernel,
                                          KernelMetadata& metadata) const override {
    const int64_t scratchBytes = libraryScratchBytes(kernel.kernel);
    std::string out = absl::StrCat("#define TJ_SMEM_BYTES ", scratchBytes, "\n");
    if (kernel.rowExchangeRows > 0)
      out += absl::StrCat("#define TJ_ROW_EXCHANGE_ROWS ", kernel.rowExchangeRows, "\n");
    metadata.dynamicSharedBytes = kernel.dynamicSharedBytes;
    // The reserved parameter `min_blocks_per_sm` (__launch_bounds__' second argument) trades
    // registers for resident programs; it never asks for more than shared memory lets reside.
    for (const auto& [name, value] : metadata.parameters) {
      if (name != "min_blocks_per_sm" || value == "0") continue;
      const int64_t requested = std::stoll(value);
      const int64_t fit = programsThatFit(*kernel.target, scratchBytes + kernel.dynamicSharedBytes);
      out += absl::StrCat("#define TJ_MIN_BLOCKS ", std::max<int64_t>(1, std::min(requested, fit)), "\n");
    }
    TJ_ASSIGN_OR_RETURN(metadata.clusterPrograms, clusterProgramsOf(kernel.kernel, metadata, *kernel.target));
    if (metadata.clusterPrograms > 1)
      out += absl::StrCat("#define TJ_CLUSTER_PROGRAMS ", metadata.clusterPrograms, "\n");
    return out;
  }

  absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(
      const TargetDescription& target, const std::string& stateDirectory) const override {
    return createNvrtcToolchain(target, stateDirectory);
  }
};

}  // namespace

const CompilerBackend& cudaBackend() {
  static const CudaBackend backend;
  return backend;
}

}  // namespace tilejit
