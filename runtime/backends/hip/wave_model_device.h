// The CPU wave model of an AMD target: runs the 'hip' kernels that the wave-model toolchain
// (compiler/backends/hip/wave_model_toolchain.h) compiled for `target`, each workgroup's lanes
// as fibers of one host thread. Not AMD silicon: what it checks is the library's lane
// arithmetic (layouts, cross-lane patterns, barriers), not timing or the hardware memory model.
// TILEJIT_AMD_TOOLCHAIN=wave-model selects it for both halves: the hip backend compiles with
// the model's toolchain, and a named AMD target (tilejit run --target gfx942) runs on this
// device, with or without an AMD GPU present.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tilejit {

inline constexpr char kAmdToolchainVariable[] = "TILEJIT_AMD_TOOLCHAIN";
inline constexpr char kWaveModelRoute[] = "wave-model";

// Whether $TILEJIT_AMD_TOOLCHAIN names the wave model.
bool waveModelSelected();

// A device reporting `target` (an AMDGPU processor name, "gfx942"); the kernels it loads must
// have been compiled for it by the wave-model toolchain, which knows which targets it models.
absl::StatusOr<std::unique_ptr<Device>> createWaveModelDevice(const std::string& target);

}  // namespace tilejit
