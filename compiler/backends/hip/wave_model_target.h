// The CPU wave model's view of one AMD target, generated from its target description: the
// header `tj_wave_model/target.h` that the shim (templates/device/hip_wave_model) includes.
// It holds the wave size, the compiler's target macros (`__GFX9__`, `__gfx942__`) and, for
// every matrix instruction of the description (compiler/backends/hip/matrix_instructions.cpp),
// the (row, col) of A, B and C that each (lane, element) holds, expanded through the
// dialect's #tj.fragment bases: the model executes those rows, never a second copy of them.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"

namespace tilejit {

inline constexpr char kWaveModelTargetHeader[] = "tj_wave_model/target.h";

// The header's text; an error where the target is not an AMDGPU processor the shim can name
// or one of its matrix instructions does not cover its tiles.
absl::StatusOr<std::string> waveModelTargetHeader(const TargetDescription& target);

// The C++ name of an instruction's layout in that header: its name with every character
// outside [A-Za-z0-9_] made '_' ("wmma_f32_16x16x16_bf16_w32_gfx12").
std::string waveModelLayoutName(const MatrixInstruction& instruction);

}  // namespace tilejit
