// The target descriptions' matrix instructions, expanded through the dialect's
// #tj.fragment bases into (lane, element) -> (row, col) maps, against formulas written
// independently from the ISA documents (cited beside the rows in target_description.cpp).
// These maps are what a CPU wave model of AMD will execute: every element is checked.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "compiler/backends/matrix_instruction_attr.h"
#include "compiler/backends/cuda/matrix_instructions.h"
#include "compiler/targets/target_description.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/IR/MLIRContext.h"

namespace tilejit {
namespace {

using Formula = std::function<std::array<int64_t, 2>(int64_t lane, int64_t element)>;
enum class Operand { kA, kB, kAcc };

const MatrixInstruction& instructionOf(const std::string& target, const std::string& name) {
  for (const MatrixInstruction& instruction : (*lookupTarget(target))->matrixInstructions)
    if (instruction.name == name) return instruction;
  ADD_FAILURE() << target << " has no " << name;
  static const MatrixInstruction none{};
  return none;
}

class MatrixLayoutTest : public ::testing::Test {
 protected:
  MatrixLayoutTest() { context_.loadDialect<mlir::tj::TjDialect>(); }

  mlir::tj::FragmentLayoutAttr fragment(const MatrixInstruction& instruction, Operand operand) {
    mlir::tj::MatrixInstrAttr attr = matrixInstrAttr(&context_, instruction);
    return operand == Operand::kA ? attr.getA() : operand == Operand::kB ? attr.getB() : attr.getAcc();
  }

  // Every (lane, element) of `operand` holds what `formula` says, each element of the
  // rows x cols tile is held `copies` times, and the dialect's verifier agrees.
  void expectOwnership(const MatrixInstruction& instruction, Operand operand, int64_t rows,
                       int64_t cols, int64_t elementsPerLane, int64_t copies, const Formula& formula) {
    SCOPED_TRACE(instruction.name + " operand " + std::to_string(int(operand)));
    mlir::tj::FragmentLayoutAttr layout = fragment(instruction, operand);
    ASSERT_TRUE(layout);
    ASSERT_EQ(int64_t(1) << layout.getRegisterBits(), elementsPerLane);
    ASSERT_EQ(int64_t(1) << layout.getLaneBits(), instruction.lanes);
    std::vector<int64_t> held(rows * cols, 0);
    for (int64_t lane = 0; lane < instruction.lanes; ++lane)
      for (int64_t element = 0; element < elementsPerLane; ++element) {
        std::array<int64_t, 2> expected = formula(lane, element);
        ASSERT_EQ(layout.elementAt(lane, element), expected) << "lane " << lane << " element " << element;
        ++held[expected[0] * cols + expected[1]];
      }
    for (int64_t count : held) ASSERT_EQ(count, copies);
    EXPECT_EQ(layout.coverageProblem(rows, cols), "");
  }

  mlir::MLIRContext context_;
};

// PTX ISA, mma.m16n8k16 fragments (.f16/.bf16): groupID = lane / 4, threadID_in_group = lane % 4.
TEST_F(MatrixLayoutTest, MmaSyncM16n8k16) {
  for (const char* target : {"sm_80", "sm_90"}) {
    const MatrixInstruction& mma = instructionOf(target, "mma.sync.m16n8k16");
    EXPECT_EQ(mma.lanes, 32);
    expectOwnership(mma, Operand::kA, 16, 16, 8, 1, [](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{lane / 4 + 8 * ((i / 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4)};
    });
    expectOwnership(mma, Operand::kB, 16, 8, 4, 1, [](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{2 * (lane % 4) + i % 2 + 8 * (i / 2), lane / 4};
    });
    expectOwnership(mma, Operand::kAcc, 16, 8, 4, 1, [](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{lane / 4 + 8 * (i / 2), 2 * (lane % 4) + i % 2};
    });
  }
}

// AMD Matrix Instruction Calculator (CDNA2/CDNA3): A[i][k] at lane i + M * (k / kL), item
// k % kL; B[k][j] at lane j + N * (k / kL), item k % kL; kL = K / (64 / M).
class MfmaLayoutTest : public MatrixLayoutTest {
 protected:
  void expectOperands(const MatrixInstruction& mfma, int64_t kL) {
    EXPECT_EQ(mfma.lanes, 64);
    EXPECT_EQ(kL, mfma.k / (64 / mfma.m));
    const int64_t m = mfma.m, n = mfma.n;
    expectOwnership(mfma, Operand::kA, m, mfma.k, kL, 1, [&](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{lane % m, kL * (lane / m) + i};
    });
    expectOwnership(mfma, Operand::kB, mfma.k, n, kL, 1, [&](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{kL * (lane / n) + i, lane % n};
    });
  }
  // 16x16 C[i][j] at lane j + 16 * (i / 4), item i % 4.
  void expectAccumulator16(const MatrixInstruction& mfma) {
    expectOwnership(mfma, Operand::kAcc, 16, 16, 4, 1, [](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{4 * (lane / 16) + i, lane % 16};
    });
  }
};

TEST_F(MfmaLayoutTest, Mfma32x32x8) {
  for (const char* target : {"gfx90a", "gfx942", "gfx950"}) {
    const MatrixInstruction& mfma = instructionOf(target, "mfma_f32_32x32x8bf16_1k");
    expectOperands(mfma, 4);
    // C[i][j] at lane j + 32 * ((i / 4) % 2), item i % 4 + 4 * (i / 8).
    expectOwnership(mfma, Operand::kAcc, 32, 32, 16, 1, [](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{8 * (i / 4) + 4 * (lane / 32) + i % 4, lane % 32};
    });
  }
}

TEST_F(MfmaLayoutTest, Mfma16x16x16) {
  for (const char* target : {"gfx90a", "gfx942", "gfx950"}) {
    const MatrixInstruction& mfma = instructionOf(target, "mfma_f32_16x16x16bf16_1k");
    expectOperands(mfma, 4);
    expectAccumulator16(mfma);
  }
}

// gfx950's double-rate form: kL = 8.
TEST_F(MfmaLayoutTest, Mfma16x16x32Gfx950) {
  const MatrixInstruction& mfma = instructionOf("gfx950", "mfma_f32_16x16x32_bf16");
  expectOperands(mfma, 8);
  expectAccumulator16(mfma);
}

// RDNA3 ISA 7.9: lanes l and l + 16 hold the same A row / B column (declared replication).
TEST_F(MatrixLayoutTest, WmmaGfx11) {
  const MatrixInstruction& wmma = instructionOf("gfx1100", "wmma_f32_16x16x16_bf16");
  EXPECT_EQ(wmma.lanes, 32);
  expectOwnership(wmma, Operand::kA, 16, 16, 16, 2, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{lane % 16, i};
  });
  expectOwnership(wmma, Operand::kB, 16, 16, 16, 2, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{i, lane % 16};
  });
  // f32 D: element i of lane l is row 2 * i + l / 16.
  expectOwnership(wmma, Operand::kAcc, 16, 16, 8, 1, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{2 * i + lane / 16, lane % 16};
  });
}

// RDNA4 ISA 7.9: no replication, eight A/B elements per lane; D rows 8 * (l / 16) + i.
TEST_F(MatrixLayoutTest, WmmaGfx12) {
  const MatrixInstruction& wmma = instructionOf("gfx1201", "wmma_f32_16x16x16_bf16_w32_gfx12");
  expectOwnership(wmma, Operand::kA, 16, 16, 8, 1, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{lane % 16, 8 * (lane / 16) + i};
  });
  expectOwnership(wmma, Operand::kB, 16, 16, 8, 1, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{8 * (lane / 16) + i, lane % 16};
  });
  expectOwnership(wmma, Operand::kAcc, 16, 16, 8, 1, [](int64_t lane, int64_t i) {
    return std::array<int64_t, 2>{8 * (lane / 16) + i, lane % 16};
  });
}

// PTX ISA, wgmma .m64nNk16 D fragments: warp w = lane / 32 holds rows 16w..16w+15.
TEST_F(MatrixLayoutTest, WgmmaAccumulator) {
  for (int64_t n : {8, 16, 64, 256}) {
    MatrixInstruction wgmma = wgmmaInstruction(n, "bf16");
    EXPECT_EQ(wgmma.lanes, 128);
    EXPECT_FALSE(fragment(wgmma, Operand::kB)) << "B comes from shared memory";
    auto row = [](int64_t lane, int64_t i) { return 16 * (lane / 32) + (lane % 32) / 4 + 8 * ((i / 2) % 2); };
    expectOwnership(wgmma, Operand::kAcc, 64, n, n / 2, 1, [&](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{row(lane, i), 8 * (i / 4) + 2 * (lane % 4) + i % 2};
    });
    expectOwnership(wgmma, Operand::kA, 64, 16, 8, 1, [&](int64_t lane, int64_t i) {
      return std::array<int64_t, 2>{row(lane, i), 2 * (lane % 4) + i % 2 + 8 * (i / 4)};
    });
  }
}

// The verifier catches one wrong basis: a copy of another basis in its place leaves elements
// unowned, whichever basis of whichever instruction it is.
TEST_F(MatrixLayoutTest, OneWrongBasisBreaksCoverage) {
  int mutations = 0;
  for (const TargetDescription& target : allTargets())
    for (const MatrixInstruction& instruction : target.matrixInstructions) {
      struct Tile {
        FragmentOwnership MatrixInstruction::*ownership;
        int64_t rows, cols;
      };
      for (Tile tile : {Tile{&MatrixInstruction::a, instruction.m, instruction.k},
                        Tile{&MatrixInstruction::b, instruction.k, instruction.n},
                        Tile{&MatrixInstruction::acc, instruction.m, instruction.n}}) {
        const FragmentOwnership& original = instruction.*tile.ownership;
        std::vector<std::array<int64_t, 2>> bases = original.registerBases;
        bases.insert(bases.end(), original.laneBases.begin(), original.laneBases.end());
        for (size_t wrong = 0; wrong < bases.size(); ++wrong) {
          if (bases[wrong] == std::array<int64_t, 2>{0, 0}) continue;  // declared replication
          MatrixInstruction mutated = instruction;
          FragmentOwnership& changed = mutated.*tile.ownership;
          std::array<int64_t, 2>& basis = wrong < original.registerBases.size()
                                              ? changed.registerBases[wrong]
                                              : changed.laneBases[wrong - original.registerBases.size()];
          basis = bases[(wrong + 1) % bases.size()];
          mlir::tj::MatrixInstrAttr attr = matrixInstrAttr(&context_, mutated);
          mlir::tj::FragmentLayoutAttr layout = tile.ownership == &MatrixInstruction::a ? attr.getA()
                                                : tile.ownership == &MatrixInstruction::b ? attr.getB()
                                                                                          : attr.getAcc();
          EXPECT_NE(layout.coverageProblem(tile.rows, tile.cols), "")
              << target.name << " " << instruction.name << " basis " << wrong;
          ++mutations;
        }
      }
    }
  EXPECT_GT(mutations, 100);
}

}  // namespace
}  // namespace tilejit
