// The CPU wave model's toolchain: the emitted HIP translation unit compiled by the host
// clang over templates/device/hip_wave_model (every lane of a workgroup a fiber, the wave
// operations modelled lane-exactly) into a shared object with the CPU backend's entry ABI.
// Chosen by TILEJIT_AMD_TOOLCHAIN=wave-model; runs on the wave-model device
// (runtime/backends/hip/wave_model_device.h). Targets: gfx90a, gfx942 (wave64, MFMA
// 16x16x16) and gfx1100 (wave32, WMMA).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"

namespace tilejit {

inline constexpr char kWaveModelRoute[] = "wave-model";

absl::StatusOr<std::unique_ptr<Toolchain>> createWaveModelToolchain(
    const TargetDescription& target);

}  // namespace tilejit
