// tj-opt: mlir-opt for tj templates, used by the lit tests (round trip, verifier
// diagnostics, specialization and emission as IR-in/IR-out passes).
#include "compiler/passes.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  mlir::tj::registerTilejitDialects(registry);
  tilejit::registerTilejitPasses();
  // -canonicalize, -cse: the clean-up the specializer runs between its passes.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "tilejit optimizer\n", registry));
}
