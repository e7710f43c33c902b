// The AMD matrix instructions as target-description rows: their shapes and which lane and
// register hold which element of A, B and the accumulator (MatrixInstruction's bases).
#pragma once

#include "compiler/targets/target_description.h"

namespace tilejit {

// MFMA, wave64 (gfx90a, gfx942, gfx950).
MatrixInstruction mfma16x16x16Instruction();
MatrixInstruction mfma32x32x8Instruction();
MatrixInstruction mfma16x16x32Instruction();  // gfx950's double-rate form

// WMMA, wave32: gfx11's (A/B replicated over the half-waves) and gfx12's (half the registers).
MatrixInstruction wmmaGfx11Instruction();
MatrixInstruction wmmaGfx12Instruction();

}  // namespace tilejit
