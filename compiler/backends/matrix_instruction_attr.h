// The bridge between the target descriptions' matrix instructions and the dialect's
// #tj.matrix_instr: every backend that gives tiles an instruction's layout builds it here.
#pragma once

#include "dialects/tj/TjDialect.h"

namespace tilejit {

struct MatrixInstruction;

// The dialect's #tj.matrix_instr for one of a target description's instructions (an
// operand without bases, such as wgmma's B, is left out).
mlir::tj::MatrixInstrAttr matrixInstrAttr(mlir::MLIRContext* context,
                                          const MatrixInstruction& instruction);

}  // namespace tilejit
