// Folds truncf(extf(x)) into one extf where the narrow type holds every value of x's type.
//
// A template that reads a cache of a configurable element type widens its codes to f32 and
// rounds them to the dot's type (`extf` then `truncf`): for a 16-bit cache of the dot's own
// type the canonicalizer folds the pair away, but for fp8 codes into bf16 or f16 the pair
// stays, although no value of e4m3fn or e5m2 rounds on the way (both hold fewer mantissa
// bits and a narrower exponent range than either). One `extf` fp8 -> bf16 says the same,
// lets a backend convert the codes straight to the dot's type, and lets the CUDA placement
// pass see an 8-bit tile that only feeds dots through a widening.
#include "compiler/passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilejit {
namespace {

using namespace mlir;

// Whether every finite value, infinity and NaN of `from` is a value of `to` (so a widening
// through any wider type and a rounding back to `to` never rounds).
bool holdsEveryValue(FloatType to, FloatType from) {
  if (to.getWidth() <= from.getWidth()) return false;
  const llvm::fltSemantics &wide = to.getFloatSemantics(), &narrow = from.getFloatSemantics();
  return llvm::APFloat::semanticsPrecision(wide) >= llvm::APFloat::semanticsPrecision(narrow) &&
         llvm::APFloat::semanticsMaxExponent(wide) >= llvm::APFloat::semanticsMaxExponent(narrow) &&
         llvm::APFloat::semanticsMinExponent(wide) -
                 int(llvm::APFloat::semanticsPrecision(wide)) <=
             llvm::APFloat::semanticsMinExponent(narrow) - int(llvm::APFloat::semanticsPrecision(narrow));
}

struct FoldRoundTrip : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp trunc, PatternRewriter& rewriter) const override {
    auto ext = trunc.getIn().getDefiningOp<arith::ExtFOp>();
    if (!ext) return failure();
    auto from = dyn_cast<FloatType>(getElementTypeOrSelf(ext.getIn().getType()));
    auto to = dyn_cast<FloatType>(getElementTypeOrSelf(trunc.getType()));
    if (!from || !to || !holdsEveryValue(to, from)) return failure();
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(trunc, trunc.getType(), ext.getIn());
    return success();
  }
};

class FoldExactFloatRoundTrips
    : public PassWrapper<FoldExactFloatRoundTrips, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FoldExactFloatRoundTrips)
  StringRef getArgument() const override { return "tj-fold-exact-float-round-trips"; }
  StringRef getDescription() const override {
    return "truncf(extf(x)) -> extf(x) where the narrow type holds every value of x's type";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldRoundTrip>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) signalPassFailure();
  }
};

}  // namespace

std::unique_ptr<Pass> createFoldExactFloatRoundTripsPass() {
  return std::make_unique<FoldExactFloatRoundTrips>();
}

}  // namespace tilejit
