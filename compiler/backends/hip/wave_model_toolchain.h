// The CPU wave model's toolchain: the emitted HIP translation unit compiled by the host
// clang over templates/device/hip_wave_model (every lane of a workgroup a fiber, the wave
// operations modelled lane-exactly) into a shared object with the CPU backend's entry ABI.
// Chosen by TILEJIT_AMD_TOOLCHAIN=wave-model; runs on the wave-model device
// (runtime/backends/hip/wave_model_device.h). Targets: every hip target description (gfx90a,
// gfx942, gfx950: wave64 MFMA; gfx1100, gfx1201: wave32 WMMA), its matrix instructions'
// layouts generated from the description (wave_model_target.h).
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "compiler/toolchains/toolchain.h"
#include "runtime/backends/hip/wave_model_device.h"  // kWaveModelRoute

namespace tilejit {

absl::StatusOr<std::unique_ptr<Toolchain>> createWaveModelToolchain(
    const TargetDescription& target);

}  // namespace tilejit
