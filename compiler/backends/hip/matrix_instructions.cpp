#include "compiler/backends/hip/matrix_instructions.h"

namespace tilejit {

// Bases are {row, col} per bit of the fragment element index, then per bit of the lane id.
// MFMA (AMD Matrix Instruction Calculator, CDNA2/CDNA3, --detail-instruction; CDNA3 ISA 7.1):
// A[i][k] at lane i + M * (k / kL), element k % kL with kL = K / (64 / M); B the same with j
// for i; 32x32 C[i][j] at lane j + 32 * (i / 4 % 2), element i % 4 + 4 * (i / 8); 16x16
// C[i][j] at lane j + 16 * (i / 4), element i % 4.
namespace {
const FragmentOwnership kMfma16C{{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}};
}  // namespace

MatrixInstruction mfma16x16x16Instruction() {
  return {"mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16", 64,
          {{{0, 1}, {0, 2}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}},
          {{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}}, kMfma16C};
}

MatrixInstruction mfma32x32x8Instruction() {
  return {"mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16", 64,
          {{{0, 1}, {0, 2}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}},
          {{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}},
          {{{1, 0}, {2, 0}, {8, 0}, {16, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}}};
}

// Eight operand elements per lane (kL = 8).
MatrixInstruction mfma16x16x32Instruction() {
  return {"mfma_f32_16x16x32_bf16", 16, 16, 32, "bf16", 64,
          {{{0, 1}, {0, 2}, {0, 4}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}, {0, 16}}},
          {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}, {16, 0}}}, kMfma16C};
}

// WMMA (RDNA3 ISA 7.9 "Wave Matrix Multiply Accumulate"; RDNA4 ISA 7.9; GPUOpen's "How to
// accelerate AI applications on RDNA 3 using WMMA"). gfx11: lanes l and l + 16 both hold A row
// l % 16 (B column l % 16) whole, element k: the lane bit 4 basis is zero; C[i][j] at lane
// j + 16 * (i % 2), element i / 2. gfx12: no replication, half the A/B elements: A[i][k] at
// lane i + 16 * (k / 8), element k % 8 (B likewise); C[i][j] at lane j + 16 * (i / 8),
// element i % 8.
MatrixInstruction wmmaGfx11Instruction() {
  return {"wmma_f32_16x16x16_bf16", 16, 16, 16, "bf16", 32,
          {{{0, 1}, {0, 2}, {0, 4}, {0, 8}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}},
          {{{1, 0}, {2, 0}, {4, 0}, {8, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}},
          {{{2, 0}, {4, 0}, {8, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}}}};
}

MatrixInstruction wmmaGfx12Instruction() {
  return {"wmma_f32_16x16x16_bf16_w32_gfx12", 16, 16, 16, "bf16", 32,
          {{{0, 1}, {0, 2}, {0, 4}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}},
          {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}},
          {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}}};
}

}  // namespace tilejit
