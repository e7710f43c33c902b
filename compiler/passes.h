// Passes of the tilejit compiler, registered for tj-opt and used by the specializer.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace tilejit {

// Infers static tile shapes once parameters are bound: tj ops with a `tile` attribute get
// their static result types, and the shapes flow through arith/math/scf.
std::unique_ptr<mlir::Pass> createRefineTileShapesPass();

void registerTilejitPasses();

}  // namespace tilejit
