// Gives the values around tensor-core dots the dot's own register layout (GPU targets).
//
// Without encodings every tile has the library's canonical distribution, so a tensor-core dot
// hands its accumulator back through shared memory (fragments -> canonical), and every row
// reduction and broadcast of a softmax exchanges through shared memory again. This pass puts
// `#tj.mma` on the tiles that live in a dot's accumulator fragments and `#tj.mma_rows` on the
// per-row values reduced from them, so that chain stays in registers:
//
// The layouts name the matrix instruction of the kernel's tensor-core dots, the target's
// first that computes the first such dot (a dot another instruction would compute keeps the
// blocked layout).
//
//   1. Values that must share a layout form classes: the operands and results of elementwise
//      arith/math ops, the values an scf.for/scf.if carries, a tensor-core dot's accumulator
//      and result, and an expand_dims that appends the last axis. tj.full ops are cloned per
//      use first, so a splat never ties two classes together.
//   2. A class holding a tensor-core dot's result is `mma`. A class reduced from an mma class
//      along its rows, or broadcast over the rows of an mma class, is `mma_rows` (to a fixed
//      point). A class whose shapes cannot hold a layout stays blocked.
//   3. Every value takes its class's layout. Where a producer cannot produce it (loads,
//      broadcasts of blocked tiles, ...) a tj.convert_layout follows the producer;
//      where a consumer needs another layout (a dot's b operand, paged_store, ...) one
//      precedes the consumer.
#include "compiler/backends/cuda/passes.h"
#include "compiler/backends/matrix_instruction_attr.h"
#include "compiler/targets/target_description.h"
#include "dialects/tj/TjDialect.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace tilejit {
namespace {

using namespace mlir;
using tj::TileLayout;

bool isTile(Value value) { return isa<RankedTensorType>(value.getType()); }

bool isElementwise(Operation* op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) || isa<arith::ConstantOp>(op))
    return false;
  return op->getNumResults() == 1 && isTile(op->getResult(0));
}

bool isSplat(Operation* op) {
  if (isa<tj::FullOp>(op)) return true;
  auto constant = dyn_cast<arith::ConstantOp>(op);
  return constant && isa<SplatElementsAttr>(constant.getValue());
}

// Whether `value`'s (static) shape can carry `layout` with `instr`: the encodings' own rule.
bool canHold(Value value, TileLayout layout, tj::MatrixInstrAttr instr) {
  auto tile = dyn_cast<RankedTensorType>(value.getType());
  if (!tile || !tile.hasStaticShape()) return layout == TileLayout::kBlocked;
  return tj::tileLayoutProblem(tile.getShape(), layout, instr).empty();
}

bool isRowReduce(tj::ReduceOp reduce) {
  return reduce.getAxis() == 1 && cast<RankedTensorType>(reduce.getSource().getType()).getRank() == 2;
}

bool isRowBroadcast(tj::BroadcastOp broadcast) {
  auto source = cast<RankedTensorType>(broadcast.getSource().getType());
  return source.getRank() == 2 && source.getDimSize(1) == 1;
}

bool joinsExpand(tj::ExpandDimsOp expand) {
  return expand.getAxis() == cast<RankedTensorType>(expand.getSource().getType()).getRank();
}

class AssignMmaLayouts : public PassWrapper<AssignMmaLayouts, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AssignMmaLayouts)

  AssignMmaLayouts() = default;
  AssignMmaLayouts(const AssignMmaLayouts& other) : PassWrapper(other) {}

  StringRef getArgument() const override { return "tj-assign-mma-layouts"; }
  StringRef getDescription() const override {
    return "keeps tensor-core accumulators and their row reductions in the dot's registers";
  }

  void runOnOperation() override {
    target_ = passTarget(getOperation(), targetName);
    if (!target_) {
      getOperation().emitError(std::string(lookupTarget(targetName).status().message()));
      return signalPassFailure();
    }
    getOperation().walk([&](tj::KernelOp kernel) {
      if (failed(runOnKernel(kernel))) signalPassFailure();
    });
  }

 private:
  LogicalResult runOnKernel(tj::KernelOp kernel) {
    instr_ = {};
    kernel.walk([&](tj::DotOp dot) {
      if (const MatrixInstruction* instruction = tensorCoreInstruction(dot, *target_); instruction && !instr_)
        instr_ = matrixInstrAttr(&getContext(), *instruction);
    });
    classes_ = {};
    layouts_.clear();
    rejected_.clear();
    conversions_.clear();
    cloneSplatsPerUse(kernel);
    buildClasses(kernel);
    markClasses(kernel);
    if (layouts_.empty()) return success();
    retypeAndRepair(kernel);
    return success();
  }

  // A dot computed by the kernel's instruction.
  bool isTensorCoreDot(tj::DotOp dot) const {
    const MatrixInstruction* instruction = tensorCoreInstruction(dot, *target_);
    return instruction && matrixInstrAttr(dot.getContext(), *instruction) == instr_;
  }

  // 1. A splat used twice would tie its users' classes together; each use gets its own.
  static void cloneSplatsPerUse(tj::KernelOp kernel) {
    SmallVector<Operation*> splats;
    kernel.walk([&](Operation* op) {
      if (isSplat(op) && isTile(op->getResult(0))) splats.push_back(op);
    });
    for (Operation* splat : splats) {
      SmallVector<OpOperand*> uses;
      for (OpOperand& use : splat->getResult(0).getUses()) uses.push_back(&use);
      for (size_t i = 1; i < uses.size(); ++i) {
        OpBuilder builder(splat);
        uses[i]->set(builder.clone(*splat)->getResult(0));
      }
    }
  }

  void join(Value a, Value b) {
    if (isTile(a) && isTile(b)) classes_.unionSets(a, b);
  }

  void buildClasses(tj::KernelOp kernel) {
    kernel.walk([&](Operation* op) {
      for (Value result : op->getResults())
        if (isTile(result)) classes_.insert(result);
      for (Region& region : op->getRegions())
        for (Block& block : region)
          for (BlockArgument arg : block.getArguments())
            if (isTile(arg)) classes_.insert(arg);
      if (isElementwise(op)) {
        for (Value operand : op->getOperands())
          if (isTile(operand) && cast<RankedTensorType>(operand.getType()).getShape() ==
                                     cast<RankedTensorType>(op->getResult(0).getType()).getShape())
            join(operand, op->getResult(0));
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        for (auto [init, arg, next, result] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                                                        loop.getYieldedValues(), loop.getResults())) {
          join(init, arg);
          join(arg, next);
          join(arg, result);
        }
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (unsigned i = 0; i < branch.getNumResults(); ++i) {
          join(branch.getResult(i), branch.thenYield().getOperand(i));
          if (!branch.getElseRegion().empty()) join(branch.getResult(i), branch.elseYield().getOperand(i));
        }
      } else if (auto dot = dyn_cast<tj::DotOp>(op)) {
        if (isTensorCoreDot(dot)) join(dot.getAcc(), dot.getResult());
      } else if (auto expand = dyn_cast<tj::ExpandDimsOp>(op)) {
        if (joinsExpand(expand)) join(expand.getSource(), expand.getResult());
      }
    });
  }

  Value leader(Value value) { return classes_.getLeaderValue(value); }

  TileLayout layoutOf(Value value) {
    if (!isTile(value) || !classes_.contains(value)) return TileLayout::kBlocked;
    auto it = layouts_.find(leader(value));
    return it == layouts_.end() ? TileLayout::kBlocked : it->second;
  }

  // Marks `value`'s class with `layout` if every member can hold it; the first mark wins.
  bool mark(Value value, TileLayout layout) {
    Value root = leader(value);
    if (layouts_.count(root) || rejected_.contains({root, int(layout)})) return false;
    for (Value member : classes_.members(root))
      if (!canHold(member, layout, instr_)) {
        rejected_.insert({root, int(layout)});
        return false;
      }
    layouts_[root] = layout;
    return true;
  }

  // 2. Seeds at tensor-core dots, then the row values derived from mma classes.
  void markClasses(tj::KernelOp kernel) {
    kernel.walk([&](tj::DotOp dot) {
      if (isTensorCoreDot(dot)) mark(dot.getResult(), TileLayout::kMma);
    });
    for (bool changed = true; changed;) {
      changed = false;
      kernel.walk([&](Operation* op) {
        if (auto reduce = dyn_cast<tj::ReduceOp>(op)) {
          if (isRowReduce(reduce) && layoutOf(reduce.getSource()) == TileLayout::kMma)
            changed |= mark(reduce.getResult(), TileLayout::kMmaRows);
        } else if (auto broadcast = dyn_cast<tj::BroadcastOp>(op)) {
          if (isRowBroadcast(broadcast) && layoutOf(broadcast.getResult()) == TileLayout::kMma)
            changed |= mark(broadcast.getSource(), TileLayout::kMmaRows);
        }
      });
    }
  }

  // Whether `op` can produce its result in layout `wanted` from its operands as they are now
  // (ops are decided in program order, so their operands have their final types: a value
  // converted after its producer is the conversion's result).
  bool canProduce(Operation* op, TileLayout wanted) const {
    if (wanted == TileLayout::kBlocked) return true;
    // A range computes its elements from their coordinates, in any layout.
    if (isElementwise(op) || isSplat(op) || isa<scf::ForOp, scf::IfOp, tj::RangeOp>(op)) return true;
    auto operandLayout = [&](unsigned i) { return tj::getTileLayout(op->getOperand(i).getType()); };
    if (auto dot = dyn_cast<tj::DotOp>(op)) return isTensorCoreDot(dot) && wanted == TileLayout::kMma;
    if (auto reduce = dyn_cast<tj::ReduceOp>(op))
      return wanted == TileLayout::kMmaRows && isRowReduce(reduce) && operandLayout(0) == TileLayout::kMma;
    if (auto broadcast = dyn_cast<tj::BroadcastOp>(op))
      return wanted == TileLayout::kMma && isRowBroadcast(broadcast) && operandLayout(0) == TileLayout::kMmaRows;
    if (auto expand = dyn_cast<tj::ExpandDimsOp>(op))
      return wanted == TileLayout::kMmaRows && joinsExpand(expand) && operandLayout(0) == TileLayout::kMmaRows;
    return false;
  }

  // The layout `op` needs operand `index` in, once results and block arguments have their
  // final types.
  TileLayout requiredOperandLayout(Operation* op, unsigned index) const {
    Value operand = op->getOperand(index);
    auto typeLayout = [](Value value) { return tj::getTileLayout(value.getType()); };
    Value result = op->getNumResults() ? op->getResult(0) : Value();
    if (isElementwise(op)) return typeLayout(result);
    if (isa<tj::StoreOp>(op)) return typeLayout(operand);  // the library stores any layout
    if (isa<tj::ClusterMergeStoreOp>(op)) return typeLayout(operand);  // stages any layout
    if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      if (auto loop = dyn_cast<scf::ForOp>(op->getParentOp()))
        return typeLayout(loop.getRegionIterArgs()[index]);
      return typeLayout(op->getParentOp()->getResult(index));
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return typeLayout(loop.getTiedLoopRegionIterArg(&op->getOpOperand(index)));
    if (auto dot = dyn_cast<tj::DotOp>(op)) {
      if (!isTensorCoreDot(dot)) return TileLayout::kBlocked;
      if (index == 0) return typeLayout(operand) == TileLayout::kMma ? TileLayout::kMma : TileLayout::kBlocked;
      if (index == 1) return TileLayout::kBlocked;
      return typeLayout(result);
    }
    if (isa<tj::ReduceOp>(op))
      return typeLayout(result) == TileLayout::kMmaRows ? TileLayout::kMma : TileLayout::kBlocked;
    if (isa<tj::BroadcastOp>(op))
      return typeLayout(result) == TileLayout::kMma ? TileLayout::kMmaRows : TileLayout::kBlocked;
    if (isa<tj::ExpandDimsOp>(op)) return typeLayout(result);
    return TileLayout::kBlocked;
  }

  Value convert(OpBuilder& builder, Location loc, Value value, TileLayout layout) const {
    Type type = tj::withTileLayout(value.getType(), layout, instr_);
    return builder.create<tj::ConvertLayoutOp>(loc, type, value, tj::stringifyTileLayout(layout));
  }

  // One conversion of `value` to `layout` for all its consumers, right after its definition
  // (so it dominates them all, and one of a value defined before a loop stays before it).
  Value convertOnce(Value value, TileLayout layout) {
    Value& converted = conversions_[{value, int(layout)}];
    if (converted) return converted;
    OpBuilder builder(value.getContext());
    if (Operation* def = value.getDefiningOp()) builder.setInsertionPointAfter(def);
    else builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    converted = convert(builder, value.getLoc(), value, layout);
    return converted;
  }

  // 3. Types from the classes; conversions where a producer or a consumer cannot follow.
  void retypeAndRepair(tj::KernelOp kernel) {
    SmallVector<Operation*> ops;
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation* op) { ops.push_back(op); });
    for (Operation* op : ops)
      for (Region& region : op->getRegions())
        for (Block& block : region)
          for (BlockArgument arg : block.getArguments())
            if (isTile(arg)) arg.setType(tj::withTileLayout(arg.getType(), layoutOf(arg), instr_));
    // Producers, in program order, so an op's operands have their final layouts when it is
    // decided (scf.for results are carried values: they follow their class).
    for (Operation* op : ops) {
      for (Value result : op->getResults()) {
        if (!isTile(result)) continue;
        TileLayout wanted = layoutOf(result);
        if (canProduce(op, wanted)) {
          result.setType(tj::withTileLayout(result.getType(), wanted, instr_));
          continue;
        }
        OpBuilder builder(op->getContext());
        builder.setInsertionPointAfter(op);
        Value converted = convert(builder, op->getLoc(), result, wanted);
        result.replaceAllUsesExcept(converted, converted.getDefiningOp());
      }
    }
    // Consumers. A value converted after its producer that a consumer wants back in the
    // producer's layout is taken from before the conversion.
    SmallVector<tj::ConvertLayoutOp> converts;
    kernel.getBody().walk([&](Operation* op) {
      if (auto convertOp = dyn_cast<tj::ConvertLayoutOp>(op)) {
        converts.push_back(convertOp);
        return;
      }
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        Value operand = op->getOperand(i);
        if (!isTile(operand)) continue;
        TileLayout needed = requiredOperandLayout(op, i);
        if (tj::getTileLayout(operand.getType()) == needed) continue;
        if (auto earlier = operand.getDefiningOp<tj::ConvertLayoutOp>();
            earlier && tj::getTileLayout(earlier.getSource().getType()) == needed) {
          op->setOperand(i, earlier.getSource());
          continue;
        }
        op->setOperand(i, convertOnce(operand, needed));
      }
    });
    for (tj::ConvertLayoutOp convertOp : converts)
      if (convertOp->use_empty()) convertOp->erase();
  }

  Option<std::string> targetName{*this, "target",
                                 llvm::cl::desc("target of templates without tj.target"),
                                 llvm::cl::init(kDefaultPassTarget)};
  const TargetDescription* target_ = nullptr;
  tj::MatrixInstrAttr instr_;
  llvm::EquivalenceClasses<Value> classes_;
  llvm::DenseMap<Value, TileLayout> layouts_;
  llvm::DenseSet<std::pair<Value, int>> rejected_;
  llvm::DenseMap<std::pair<Value, int>, Value> conversions_;
};

}  // namespace

std::unique_ptr<Pass> createAssignMmaLayoutsPass() { return std::make_unique<AssignMmaLayouts>(); }

}  // namespace tilejit
