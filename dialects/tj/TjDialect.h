// The `tj` dialect: tile-level templates of attention kernels.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/tj/TjDialect.h.inc"
#include "dialects/tj/TjEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tj/TjTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "dialects/tj/TjAttrs.h.inc"

namespace mlir::tj {
class KernelOp;
class LaunchOp;
class ParamOp;
}  // namespace mlir::tj

#define GET_OP_CLASSES
#include "dialects/tj/TjOps.h.inc"

namespace mlir::tj {

// Registers tj and the upstream dialects templates use (arith, math, scf).
void registerTilejitDialects(DialectRegistry& registry);

// An extent of a view, cache or tile: a constant, or a name still to be bound.
struct Extent {
  int64_t value = ShapedType::kDynamic;
  StringRef name;
  bool isConstant() const { return name.empty(); }
};
Extent getExtent(Attribute attr);
// `[num_tokens, 8, head_size]`: a list of extents, integers and bare names, as views, caches
// and tile shapes spell them.
ParseResult parseExtentList(AsmParser& parser, ArrayAttr& extents);
void printExtentList(AsmPrinter& printer, ArrayAttr extents);

// The tile layouts (encodings of tile types); kBlocked is a tile without an encoding.
enum class TileLayout { kBlocked, kMma, kMmaRows };
TileLayout getTileLayout(Type type);
// `type` with `layout`'s encoding (none for kBlocked); non-tiles are returned unchanged.
Type withTileLayout(Type type, TileLayout layout);
StringRef stringifyTileLayout(TileLayout layout);
// Why a tile of `shape` cannot have `layout` (dynamic extents pass), or null when it can.
const char* tileLayoutProblem(ArrayRef<int64_t> shape, TileLayout layout);

}  // namespace mlir::tj
