// Queries over the tiles a backend's placement pass put in a program's shared memory / LDS:
// loads marked `shared_buffer` (with `shared_slots`, and `shared_transposed` for a tile held
// as [cols, rows]) and the scf.for values they are carried through. Backend-neutral: they read
// the marks, not a library's layout (a buffer's bytes are the backend's: placedBufferSizes).
#pragma once

#include <optional>

#include "dialects/tj/TjDialect.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/IR/Value.h"

namespace tilejit {

// The tiles placed under `root`: placed loads' results, the scf.for values they are
// carried through and the widenings of placed fp8 codes. `transposedOnly`: those of loads placed transposed.
llvm::DenseSet<mlir::Value> placedTileValues(mlir::Operation* root, bool transposedOnly = false);

// The value whose elements a placed tile holds in shared memory: the codes a widening
// (arith.extf of placed fp8 codes, done as the dot reads them) reads, else the tile itself.
mlir::Value placedStorage(mlir::Value tile);

// The shape a placed load's tile has in shared memory: its own, or transposed.
mlir::RankedTensorType placedTileShape(mlir::Operation* load);

// A lower bound on the groups of asynchronous copies committed after those that fill the
// placed operands of `dot` (`placed`: placedTileValues), on every path to it: the dot may wait
// with that constant (a wait for fewer pending groups than that waits for its operands too)
// instead of a distance worked out at run time. None where the analysis cannot tell, or where
// no operand is placed.
std::optional<int64_t> copyGroupsCommittedSinceOperands(mlir::tj::DotOp dot,
                                                        const llvm::DenseSet<mlir::Value>& placed);

}  // namespace tilejit
