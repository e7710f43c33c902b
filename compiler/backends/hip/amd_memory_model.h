// The HIP device library's LDS scratch (templates/device/hip/README.md, "LDS"): what one
// kernel's reductions, broadcasts and dots ask of TJ_SMEM_BYTES.
#pragma once

#include <cstdint>

namespace mlir {
class Operation;
}  // namespace mlir

namespace tilejit {

// Bytes of TJ_SMEM_BYTES `kernel` needs: the largest reduced or broadcast tile in f32 (or
// its element, where wider), every dot's f32 product (M * N * 4) and, up to `budget`, every
// dot's operands staged in one chunk ((M + N) * (K + 16 / element size) * element size, the
// element f32 unless both operands are one 16-bit type). Never below what the library
// requires whole (the tiles and products); a multiple of 16, at least 16 (the buffer is declared in every kernel).
int64_t amdLibraryScratchBytes(mlir::Operation* kernel, int64_t budget);

}  // namespace tilejit
