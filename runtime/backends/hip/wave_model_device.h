// The CPU wave model of an AMD target: runs the 'hip' kernels that the wave-model toolchain
// (compiler/backends/hip/wave_model_toolchain.h, TILEJIT_AMD_TOOLCHAIN=wave-model) compiled
// for `target`, each workgroup's lanes as fibers of one host thread. Not AMD silicon: what it
// checks is the library's lane arithmetic (layouts, cross-lane patterns, barriers), not
// timing or the hardware memory model.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device.h"

namespace tilejit {

// gfx90a, gfx942 (wave64) or gfx1100 (wave32); another target is an error naming them.
absl::StatusOr<std::unique_ptr<Device>> createWaveModelDevice(const std::string& target);

}  // namespace tilejit
