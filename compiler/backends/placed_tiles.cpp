#include "compiler/backends/placed_tiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilejit {

using namespace mlir;

RankedTensorType placedTileShape(Operation* load) {
  auto tile = cast<RankedTensorType>(load->getResult(0).getType());
  if (!load->hasAttr("shared_transposed")) return tile;
  return RankedTensorType::get({tile.getDimSize(1), tile.getDimSize(0)}, tile.getElementType(),
                               tile.getEncoding());
}

llvm::DenseSet<Value> placedTileValues(Operation* root, bool transposedOnly) {
  llvm::DenseSet<Value> placed;
  root->walk([&](Operation* op) {
    if (op->hasAttr("shared_buffer") && (!transposedOnly || op->hasAttr("shared_transposed")))
      placed.insert(op->getResult(0));
  });
  for (bool grew = true; grew;) {
    grew = false;
    root->walk([&](scf::ForOp loop) {
      for (auto [init, arg, result] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(), loop.getResults()))
        if (placed.contains(init) && placed.insert(arg).second) {
          placed.insert(result);
          grew = true;
        }
    });
  }
  // Placed codes widened for their dots are the same tile, read through the widening.
  root->walk([&](arith::ExtFOp widen) {
    if (placed.contains(widen.getIn())) placed.insert(widen.getResult());
  });
  return placed;
}

Value placedStorage(Value tile) {
  if (auto widen = tile.getDefiningOp<arith::ExtFOp>()) return widen.getIn();
  return tile;
}

namespace {

// Placed loads each commit one group of asynchronous copies (tj/shared.h AsyncCopies).
bool commitsCopyGroup(Operation& op) { return op.hasAttr("shared_buffer"); }

int64_t copyGroupsBetween(Block::iterator begin, Block::iterator end) {
  return llvm::count_if(llvm::make_range(begin, end), commitsCopyGroup);
}

// The placed loads that run before `user` in its block and in each enclosing block up to
// `block`, and the operation of `block` that holds `user` (null if `block` does not enclose it).
std::pair<int64_t, Operation*> groupsUpTo(Operation* user, Block* block) {
  int64_t groups = 0;
  Operation* at = user;
  while (at && at->getBlock() != block) {
    groups += copyGroupsBetween(at->getBlock()->begin(), at->getIterator());
    at = at->getParentOp();
  }
  return {groups, at};
}

// A lower bound on the copy groups committed after the one that filled the placed tile `tile`
// and before `user` runs, on every path: a loop-carried tile's first iteration and its later
// ones; placed loads nested in regions that may not run are left out. None where the fill is
// not found that way.
std::optional<int64_t> groupsCommittedSince(Value tile, Operation* user, int depth = 0) {
  tile = placedStorage(tile);
  if (Operation* def = tile.getDefiningOp()) {
    auto [groups, at] = groupsUpTo(user, def->getBlock());
    if (!at || !commitsCopyGroup(*def)) return std::nullopt;
    return groups + copyGroupsBetween(std::next(def->getIterator()), at->getIterator());
  }
  auto arg = cast<BlockArgument>(tile);
  Block* body = arg.getOwner();
  auto loop = dyn_cast<scf::ForOp>(body->getParentOp());
  // A tile passed from iter_arg to iter_arg (a deeper prefetch) is followed a few steps.
  if (!loop || arg.getArgNumber() == 0 || depth > 4) return std::nullopt;
  auto [groups, at] = groupsUpTo(user, body);
  if (!at) return std::nullopt;
  unsigned index = arg.getArgNumber() - 1;
  Operation* yield = body->getTerminator();
  std::optional<int64_t> first = groupsCommittedSince(loop.getInitArgs()[index], loop, depth + 1);
  std::optional<int64_t> later = groupsCommittedSince(yield->getOperand(index), yield, depth + 1);
  if (!first || !later) return std::nullopt;
  return std::min(*first, *later) + groups + copyGroupsBetween(body->begin(), at->getIterator());
}

}  // namespace

std::optional<int64_t> copyGroupsCommittedSinceOperands(tj::DotOp dot,
                                                        const llvm::DenseSet<Value>& placed) {
  std::optional<int64_t> newer;
  for (Value operand : {dot.getA(), dot.getB()}) {
    if (!placed.contains(operand)) continue;
    std::optional<int64_t> since = groupsCommittedSince(operand, dot);
    if (!since) return std::nullopt;
    newer = newer ? std::min(*newer, *since) : *since;
  }
  return newer;
}

}  // namespace tilejit
