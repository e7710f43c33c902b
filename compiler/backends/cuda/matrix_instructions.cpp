#include "compiler/backends/cuda/matrix_instructions.h"

#include "absl/strings/str_cat.h"

namespace tilejit {

// Bases are {row, col} per bit of the fragment element index, then per bit of the lane id.
// PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type": groupID = lane / 4,
// threadID_in_group = lane % 4; A: row = groupID + 8 * (i / 2 % 2), col = 2 * (lane % 4) +
// i % 2 + 8 * (i / 4); B: row = 2 * (lane % 4) + i % 2 + 8 * (i / 2), col = groupID;
// C: row = groupID + 8 * (i / 2), col = 2 * (lane % 4) + i % 2.
MatrixInstruction mmaSyncInstruction(const std::string& operandType) {
  const FragmentOwnership a{{{0, 1}, {8, 0}, {0, 8}}, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}};
  const FragmentOwnership b{{{1, 0}, {8, 0}}, {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}}};
  const FragmentOwnership c{{{0, 1}, {8, 0}}, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}};
  return {"mma.sync.m16n8k16", 16, 8, 16, operandType, 32, a, b, c};
}

MatrixInstruction wgmmaInstruction(int64_t n, const std::string& operandType) {
  // PTX ISA, "Register Fragments and Shared Memory Matrix Layouts" for wgmma .m64nNk16: warp
  // w of the warpgroup holds rows 16w..16w+15 of A and D. D: row = 16 * w + groupID +
  // 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2; A in registers is mma.sync's
  // A per warp. B is read from shared memory only.
  const std::vector<std::array<int64_t, 2>> lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0},
                                                     {4, 0}, {16, 0}, {32, 0}};
  MatrixInstruction instruction{absl::StrCat("wgmma.m64n", n, "k16"), 64, n, 16, operandType, 128};
  instruction.a = {{{0, 1}, {8, 0}, {0, 8}}, lanes};
  instruction.acc = {{{0, 1}, {8, 0}}, lanes};
  for (int64_t cols = 8; cols < n; cols *= 2) instruction.acc.registerBases.push_back({0, cols});
  return instruction;
}

}  // namespace tilejit
