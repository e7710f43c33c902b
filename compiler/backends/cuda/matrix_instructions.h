// The NVIDIA matrix instructions as target-description rows: their shapes and which lane and
// register hold which element of A, B and the accumulator (MatrixInstruction's bases).
#pragma once

#include <string>

#include "compiler/targets/target_description.h"

namespace tilejit {

// mma.sync.m16n8k16 (sm_80+, a warp of 32 lanes): what the CUDA device library computes with.
MatrixInstruction mmaSyncInstruction(const std::string& operandType);

// wgmma.m64nNk16 (sm_90, a warpgroup of 128 lanes) for N in 8, 16, ..., 256: A and the
// accumulator D; B comes from shared memory. Not listed on sm_90: the library uses mma.sync.
MatrixInstruction wgmmaInstruction(int64_t n, const std::string& operandType);

}  // namespace tilejit
