// Target-neutral passes of the tilejit compiler, registered for tj-opt and used by the
// specializer. Each backend declares its own target passes in its folder.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace tilejit {

// Binds every template's parameters for a target (options `target`, `values` as
// name=value,...) and replaces them by constants (bindTemplateParameters).
std::unique_ptr<mlir::Pass> createBindParametersPass();

// Rejects a bound template whose constraints fail; erases those that hold.
std::unique_ptr<mlir::Pass> createCheckConstraintsPass();

// Fully unrolls the loops marked `tj.unroll` (constant bounds required).
std::unique_ptr<mlir::Pass> createUnrollMarkedLoopsPass();

// Infers static tile shapes once parameters are bound: tj ops with a `tile` attribute get
// their static result types, and the shapes flow through arith/math/scf.
std::unique_ptr<mlir::Pass> createRefineTileShapesPass();

// Loops marked `tj.prefetch_depth = d` (d in [1, 3]) carry d tiles loaded ahead instead of
// one: the prologue loads d - 1 more steps and the body loads step iv + d * step. The
// attribute is consumed; a marked loop without a one-step-ahead tj.paged_load is an error.
std::unique_ptr<mlir::Pass> createDeepenLoopPrefetchPass();

// truncf(extf(x)) -> extf(x) where the narrow type holds every value of x's type (fp8 codes
// widened to f32 and rounded to bf16 or f16: one exact widening).
std::unique_ptr<mlir::Pass> createFoldExactFloatRoundTripsPass();

// Registers the passes above and every backend's target passes.
void registerTilejitPasses();

}  // namespace tilejit
