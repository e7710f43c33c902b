// tj-unroll-marked-loops: fully unrolls the scf.for loops a template marks `tj.unroll`, once
// parameter binding and canonicalization have made their bounds constants; a marked loop
// whose trip count is still unknown is an error.
#include "absl/strings/str_cat.h"
#include "compiler/passes.h"
#include "compiler/specialize/template_step_pass.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace tilejit {

using namespace mlir;

absl::Status unrollMarkedLoops(tj::TemplateOp templ) {
  SmallVector<scf::ForOp> unroll;
  templ.walk([&](scf::ForOp loop) {
    if (loop->hasAttr("tj.unroll")) unroll.push_back(loop);
  });
  for (scf::ForOp loop : unroll)
    if (failed(loopUnrollFull(loop)))
      return absl::InvalidArgumentError(absl::StrCat(
          "a loop marked tj.unroll in '", templ.getSymName().str(),
          "' does not have constant bounds after specialization"));
  return absl::OkStatus();
}

std::unique_ptr<Pass> createUnrollMarkedLoopsPass() {
  return std::make_unique<TemplateStepPass<&unrollMarkedLoops>>(
      "tj-unroll-marked-loops",
      "fully unroll the loops marked tj.unroll (their bounds must be constants)");
}

}  // namespace tilejit
