// The HIP backend: AMD targets (MFMA on gfx9, WMMA on gfx11/12) and their toolchains
// (hiprtc, comgr, the in-process LLVM AMDGPU compiler), picked per target by what is present.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/backend.h"
#include "compiler/backends/hip/amd_compile.h"
#include "compiler/backends/hip/amd_memory_model.h"
#include "compiler/backends/hip/amd_resources.h"
#include "compiler/backends/hip/amd_toolchains.h"
#include "compiler/backends/hip/matrix_instructions.h"
#include "compiler/backends/hip/wave_model_toolchain.h"
#include "support/status.h"

namespace tilejit {
namespace {

class HipBackend : public CompilerBackend {
 public:
  std::string_view name() const override { return "hip"; }
  std::string_view sourceSuffix() const override { return ".cpp"; }
  int listingRank() const override { return 1; }

  std::vector<TargetDescription> targets() const override {
    const MatrixInstruction mfma16 = mfma16x16x16Instruction();
    const MatrixInstruction mfma32 = mfma32x32x8Instruction();
    const MatrixInstruction mfma16k32 = mfma16x16x32Instruction();
    return {
        {"gfx90a", "MI210/MI250X", Vendor::kAmd, "hip", 64, 104, 1024, 64 * 1024, 131072, 512,
         {mfma16, mfma32}},
        {"gfx942", "MI300X/MI325X", Vendor::kAmd, "hip", 64, 304, 1024, 64 * 1024, 131072, 512,
         {mfma16, mfma32}},
        {"gfx950", "MI355X", Vendor::kAmd, "hip", 64, 256, 1024, 160 * 1024, 131072, 512,
         {mfma16k32, mfma16, mfma32}},
        {"gfx1100", "RX 7900 XTX (RDNA3)", Vendor::kAmd, "hip", 32, 96, 1024, 64 * 1024, 98304,
         256, {wmmaGfx11Instruction()}},
        {"gfx1201", "RX 9070 XT (RDNA4)", Vendor::kAmd, "hip", 32, 64, 1024, 64 * 1024, 98304,
         256, {wmmaGfx12Instruction()}},
    };
  }

  // Memory model: TJ_SMEM_BYTES as tj/ asks for it (amd_memory_model.h), unbounded here; the
  // prelude caps the dot's one-chunk staging at the target's LDS less the wave slices.
  int64_t libraryScratchBytes(mlir::Operation* kernel) const override {
    return amdLibraryScratchBytes(kernel, INT64_MAX);
  }

  // TJ_SMEM_BYTES; TJ_MIN_BLOCKS (the library's amdgpu_waves_per_eu) from min_blocks_per_sm,
  // never more programs than the LDS holds; cluster_size refused (AMD has no clusters).
  absl::StatusOr<std::string> emitPrelude(const KernelPrelude& kernel,
                                          KernelMetadata& metadata) const override {
    const TargetDescription& target = *kernel.target;
    // Each wave's private slice (tj/types.h: wave size x 32 bytes), where a kernel uses one.
    const int64_t waveSlices = metadata.threadsPerProgram / target.warpSize * target.warpSize * 32;
    const int64_t scratchBytes =
        amdLibraryScratchBytes(kernel.kernel, target.sharedBytesPerProgram - waveSlices);
    std::string out = absl::StrCat("#define TJ_SMEM_BYTES ", scratchBytes, "\n");
    metadata.dynamicSharedBytes = kernel.dynamicSharedBytes;
    for (const auto& [name, value] : metadata.parameters) {
      int64_t requested = 0;
      if (name == "cluster_size" && value != "1")
        return absl::InvalidArgumentError(absl::StrCat(
            "cluster_size ", value, ": AMD target ", target.name,
            " has no thread-block clusters (cluster_size must be 1)"));
      if (name != "min_blocks_per_sm") continue;
      if (!absl::SimpleAtoi(value, &requested) || requested < 0)
        return absl::InvalidArgumentError(
            absl::StrCat("min_blocks_per_sm '", value, "' is not a non-negative integer"));
      if (requested == 0) continue;
      const int64_t fit =
          programsThatFit(target, scratchBytes + waveSlices + kernel.dynamicSharedBytes);
      out += absl::StrCat("#define TJ_MIN_BLOCKS ", std::max<int64_t>(1, std::min(requested, fit)), "\n");
    }
    TJ_ASSIGN_OR_RETURN(metadata.clusterPrograms, clusterProgramsOf(kernel.kernel, metadata, target));
    return out;
  }

  std::string resourceReport(const KernelMetadata& metadata,
                             const std::string& binary) const override {
    absl::StatusOr<const TargetDescription*> target = lookupTarget(metadata.target);
    absl::StatusOr<AmdKernelDescriptor> kernel = amdKernelOf(binary, metadata.entry);
    if (!target.ok() || !kernel.ok())
      return absl::StrCat("  amdgpu: no metadata (",
                          (target.ok() ? kernel.status() : target.status()).message(), ")\n");
    return formatAmdResources(**target, *kernel, metadata.threadsPerProgram);
  }

  absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(
      const TargetDescription& target, const std::string&) const override {
    // The CPU wave model (host clang over the library; runs on the wave-model device).
    if (waveModelSelected()) return createWaveModelToolchain(target);
    const char* route = std::getenv(kAmdToolchainVariable);
    return createAmdToolchain(target, route ? route : "");
  }
};

}  // namespace

const CompilerBackend& hipBackend() {
  static const HipBackend backend;
  return backend;
}

}  // namespace tilejit
