// The HIP backend: AMD targets (MFMA on gfx9, WMMA on gfx11/12) and their toolchains
// (hiprtc, comgr, the in-process LLVM AMDGPU compiler), picked per target by what is present.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/backend.h"
#include "compiler/backends/hip/amd_compile.h"
#include "compiler/backends/hip/amd_resources.h"
#include "compiler/backends/hip/amd_toolchains.h"
#include "compiler/backends/hip/matrix_instructions.h"
#include "compiler/backends/hip/wave_model_toolchain.h"

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

  // The default prelude (no defines) until a library here has a scratch to size.

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
    const char* route = std::getenv("TILEJIT_AMD_TOOLCHAIN");
    // The CPU wave model (host clang over the library; runs on the wave-model device).
    if (route && std::string_view(route) == kWaveModelRoute) return createWaveModelToolchain(target);
    return createAmdToolchain(target, route ? route : "");
  }
};

}  // namespace

const CompilerBackend& hipBackend() {
  static const HipBackend backend;
  return backend;
}

}  // namespace tilejit
