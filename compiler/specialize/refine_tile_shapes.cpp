// Gives every tile a static shape once parameters are bound. Templates write tiles as
// `tensor<?x?xf32>` with the extents in a `tile` attribute (`[block_n, head_size]`); after
// substitution those are integers, and the shapes flow forward through arith/math ops,
// reductions, dots and scf loops.
#include "compiler/backends/registry.h"
#include "compiler/passes.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

namespace tilejit {
namespace {

using namespace mlir;

RankedTensorType withShape(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) return tensor.getElementType();
  return type;
}

// The static shape named by a `tile` attribute, or failure if a name is still unbound.
FailureOr<SmallVector<int64_t>> tileShape(Operation* op) {
  auto tile = op->getAttrOfType<ArrayAttr>("tile");
  SmallVector<int64_t> shape;
  for (Attribute attr : tile) {
    auto integer = dyn_cast<IntegerAttr>(attr);
    if (!integer) return op->emitOpError("tile extent ") << attr << " is not bound", failure();
    shape.push_back(integer.getInt());
  }
  return shape;
}

class TileShapeRefiner {
 public:
  LogicalResult refineBlock(Block& block) {
    for (Operation& op : block)
      if (failed(refine(op))) return failure();
    return success();
  }

 private:
  LogicalResult refine(Operation& op) {
    if (op.hasAttr("tile") && op.getNumResults() == 1) {
      FailureOr<SmallVector<int64_t>> shape = tileShape(&op);
      if (failed(shape)) return failure();
      setType(op.getResult(0), withShape(*shape, elementTypeOf(op.getResult(0).getType())));
      return success();
    }
    if (auto expand = dyn_cast<tj::ExpandDimsOp>(op)) {
      SmallVector<int64_t> shape(expand.getSource().getType().getShape());
      shape.insert(shape.begin() + expand.getAxis(), 1);
      setType(expand.getResult(), withShape(shape, expand.getSource().getType().getElementType()));
      return success();
    }
    if (auto reduce = dyn_cast<tj::ReduceOp>(op)) {
      auto source = reduce.getSource().getType();
      if (source.getRank() == 1) return success();
      SmallVector<int64_t> shape(source.getShape());
      shape.erase(shape.begin() + reduce.getAxis());
      setType(reduce.getResult(), withShape(shape, source.getElementType()));
      return success();
    }
    if (auto dot = dyn_cast<tj::DotOp>(op)) {
      setType(dot.getResult(), dot.getAcc().getType());
      return success();
    }
    if (auto convert = dyn_cast<tj::ConvertLayoutOp>(op)) {
      setType(convert.getResult(), convert.getSource().getType());
      return success();
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, result] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults())) {
        arg.setType(init.getType());
        result.setType(init.getType());
      }
      return refineBlock(*loop.getBody());
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      if (failed(refineBlock(branch.getThenRegion().front()))) return failure();
      if (!branch.getElseRegion().empty() &&
          failed(refineBlock(branch.getElseRegion().front())))
        return failure();
      for (auto [result, yielded] :
           llvm::zip(branch.getResults(), branch.thenYield().getOperands()))
        result.setType(yielded.getType());
      return success();
    }
    // Elementwise arith/math ops: the result takes the shape of the tile operands.
    if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect())) {
      RankedTensorType shaped;
      for (Value operand : op.getOperands())
        if (auto tensor = dyn_cast<RankedTensorType>(operand.getType())) shaped = tensor;
      if (!shaped) return success();
      for (Value result : op.getResults())
        if (isa<RankedTensorType>(result.getType()))
          setType(result, withShape(shaped.getShape(), elementTypeOf(result.getType())));
      return success();
    }
    for (Region& region : op.getRegions())
      for (Block& block : region)
        if (failed(refineBlock(block))) return failure();
    return success();
  }

  static void setType(Value value, Type type) { value.setType(type); }
};

class RefineTileShapesPass
    : public PassWrapper<RefineTileShapesPass, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RefineTileShapesPass)
  StringRef getArgument() const final { return "tj-refine-tile-shapes"; }
  StringRef getDescription() const final {
    return "give every tile a static shape once parameters are bound";
  }
  void runOnOperation() override {
    for (auto templ : getOperation().getOps<tj::TemplateOp>()) {
      TileShapeRefiner refiner;
      for (Operation& op : templ.getBody().front())
        for (Region& region : op.getRegions())
          for (Block& block : region)
            if (failed(refiner.refineBlock(block))) return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createRefineTileShapesPass() {
  return std::make_unique<RefineTileShapesPass>();
}

}  // namespace tilejit

namespace tilejit {
void registerTilejitPasses() {
  mlir::registerPass([] { return createBindParametersPass(); });
  mlir::registerPass([] { return createCheckConstraintsPass(); });
  mlir::registerPass([] { return createUnrollMarkedLoopsPass(); });
  mlir::PassRegistration<RefineTileShapesPass>();
  mlir::registerPass([] { return createDeepenLoopPrefetchPass(); });
  mlir::registerPass([] { return createFoldExactFloatRoundTripsPass(); });
  registerBackendPasses();
}
}  // namespace tilejit
