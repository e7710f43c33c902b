// Deepens the prefetch of a loop marked `tj.prefetch_depth = d` from one tile ahead to d.
//
// A template prefetches by carrying a tile through scf.for: the tile of the first step is
// loaded before the loop, and each iteration loads the tile of the next step (iv + step) and
// yields it. Then only one tile per chain is in flight while a program computes, and a
// program whose tiles arrive slower than it computes waits on every one: in-flight bytes
// per SM, not compute, bound the bandwidth it reaches. With depth d, the loop carries the
// tiles of steps iv .. iv + (d-1)*step, loads step iv + d*step, and yields the carried
// tiles shifted by one; the prologue loads steps lb + step .. lb + (d-1)*step. The body's
// uses of the current tile do not change, so the result is the same computation. On GPU
// targets the placement pass then gives such a chain d + 1 shared-memory slots.
//
// A carried load qualifies when its init is a tj.paged_load of tokens `lb` and what the body
// yields for it is a tj.paged_load of the same cache, table, sequence, limit, head and tile of
// tokens `iv + step` (rows past the limit are masked, so loads past the end read nothing).
// `tj.prefetch_depth` is a template attribute: the specializer binds it (an integer, or the
// name of an int parameter) and this pass consumes it.
#include "compiler/passes.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace tilejit {
namespace {

using namespace mlir;

constexpr int64_t kMaxPrefetchDepth = 3;

bool sameIndex(Value a, Value b) {
  if (a == b) return true;
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  return x && y && *x == *y;
}

// Whether `tokens` is iv + step.
bool isNextStep(Value tokens, scf::ForOp loop) {
  auto add = tokens.getDefiningOp<arith::AddIOp>();
  if (!add) return false;
  Value iv = loop.getInductionVar();
  return (add.getLhs() == iv && sameIndex(add.getRhs(), loop.getStep())) ||
         (add.getRhs() == iv && sameIndex(add.getLhs(), loop.getStep()));
}

bool sameGather(tj::PagedLoadOp a, tj::PagedLoadOp b) {
  return a.getCache() == b.getCache() && a.getTable() == b.getTable() &&
         a.getSeq() == b.getSeq() && sameIndex(a.getLimit(), b.getLimit()) &&
         sameIndex(a.getHead(), b.getHead()) && a.getType() == b.getType() &&
         a->getAttrDictionary() == b->getAttrDictionary();
}

// One carried tile: its iter_arg index, the load before the loop and the one in the body.
struct Prefetch {
  unsigned index;
  tj::PagedLoadOp first;
  tj::PagedLoadOp next;
};

SmallVector<Prefetch> findPrefetches(scf::ForOp loop) {
  SmallVector<Prefetch> found;
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    auto first = loop.getInitArgs()[i].getDefiningOp<tj::PagedLoadOp>();
    auto next = loop.getYieldedValues()[i].getDefiningOp<tj::PagedLoadOp>();
    if (!first || !next || next->getParentOp() != loop.getOperation()) continue;
    if (!sameIndex(first.getStart(), loop.getLowerBound()) || !isNextStep(next.getStart(), loop))
      continue;
    if (!sameGather(first, next) || !next->hasOneUse()) continue;
    found.push_back({i, first, next});
  }
  return found;
}

// lb + k * step, built at the builder's point.
Value stepsFrom(OpBuilder& b, Location loc, Value base, Value step, int64_t k) {
  Value count = arith::ConstantIndexOp::create(b, loc, k);
  Value offset = arith::MulIOp::create(b, loc, step, count);
  return arith::AddIOp::create(b, loc, base, offset);
}

LogicalResult deepen(scf::ForOp loop, int64_t depth) {
  SmallVector<Prefetch> prefetches = findPrefetches(loop);
  if (prefetches.empty())
    return loop.emitError("tj.prefetch_depth: the loop carries no tile loaded one step ahead "
                          "(a tj.paged_load of tokens `lb` as init and of tokens `iv + step` "
                          "yielded)");
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  // The prologue: steps 1 .. depth-1 of every chain, in chain order.
  SmallVector<Value> inits;
  for (Prefetch& p : prefetches)
    for (int64_t k = 1; k < depth; ++k) {
      Value tokens = stepsFrom(builder, loc, loop.getLowerBound(), loop.getStep(), k);
      Operation* load = builder.clone(*p.first);
      cast<tj::PagedLoadOp>(load).getStartMutable().assign(tokens);
      inits.push_back(load->getResult(0));
    }
  // The body's load now fetches step iv + depth * step.
  for (Prefetch& p : prefetches) {
    builder.setInsertionPoint(p.next);
    Value tokens = stepsFrom(builder, loc, loop.getInductionVar(), loop.getStep(), depth);
    p.next.getStartMutable().assign(tokens);
  }
  SmallVector<NamedAttribute> marks(loop->getDiscardableAttrs());

  IRRewriter rewriter(loop.getContext());
  FailureOr<LoopLikeOpInterface> grown = cast<LoopLikeOpInterface>(loop.getOperation())
      .replaceWithAdditionalYields(
          rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
          [&](OpBuilder&, Location, ArrayRef<BlockArgument> added) {
            // Chain c's added args hold steps iv + step .. iv + (depth-1) * step; each shifts
            // down by one and the body's load fills the last.
            SmallVector<Value> yielded;
            for (size_t c = 0; c < prefetches.size(); ++c) {
              ArrayRef<BlockArgument> args = added.slice(c * (depth - 1), depth - 1);
              for (size_t k = 1; k < args.size(); ++k) yielded.push_back(args[k]);
              yielded.push_back(prefetches[c].next.getResult());
            }
            return yielded;
          });
  if (failed(grown)) return loop.emitError("tj.prefetch_depth: the loop could not be extended");
  auto deeper = cast<scf::ForOp>(grown->getOperation());
  // The current tile's carry now takes the tile one step ahead.
  auto yield = cast<scf::YieldOp>(deeper.getBody()->getTerminator());
  unsigned original = deeper.getNumRegionIterArgs() - inits.size();
  for (size_t c = 0; c < prefetches.size(); ++c)
    yield->setOperand(prefetches[c].index, deeper.getRegionIterArgs()[original + c * (depth - 1)]);
  // Other marks (tj.unroll) stay; this one is done.
  for (NamedAttribute attr : marks) deeper->setAttr(attr.getName(), attr.getValue());
  deeper->removeAttr("tj.prefetch_depth");
  return success();
}

class DeepenLoopPrefetch : public PassWrapper<DeepenLoopPrefetch, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeepenLoopPrefetch)

  StringRef getArgument() const override { return "tj-deepen-loop-prefetch"; }
  StringRef getDescription() const override {
    return "loops marked tj.prefetch_depth = d keep d tiles in flight instead of one";
  }

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr("tj.prefetch_depth")) loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto depth = loop->getAttrOfType<IntegerAttr>("tj.prefetch_depth");
      if (!depth || depth.getInt() < 1 || depth.getInt() > kMaxPrefetchDepth) {
        loop.emitError() << "tj.prefetch_depth must be an integer in [1, " << kMaxPrefetchDepth
                         << "] (or name an int parameter), got " << loop->getAttr("tj.prefetch_depth");
        return signalPassFailure();
      }
      if (depth.getInt() == 1) {
        loop->removeAttr("tj.prefetch_depth");
        continue;
      }
      if (failed(deepen(loop, depth.getInt()))) return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createDeepenLoopPrefetchPass() { return std::make_unique<DeepenLoopPrefetch>(); }

}  // namespace tilejit
