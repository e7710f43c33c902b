// The `tj` dialect: tile-level templates of attention kernels.
#pragma once

#include <array>
#include <string>

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

#define GET_ATTRDEF_CLASSES
#include "dialects/tj/TjAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "dialects/tj/TjTypes.h.inc"

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
// The matrix instruction an mma or mma_rows tile's encoding names (null: none).
MatrixInstrAttr getMatrixInstr(Type type);
// `type` with `layout`'s encoding (none for kBlocked) naming `instr`; non-tiles are returned
// unchanged.
Type withTileLayout(Type type, TileLayout layout, MatrixInstrAttr instr);
StringRef stringifyTileLayout(TileLayout layout);
// Why a tile of `shape` cannot have `layout` with `instr`'s fragments (dynamic extents pass;
// without an instruction only the rank is checked), or an empty string when it can.
std::string tileLayoutProblem(ArrayRef<int64_t> shape, TileLayout layout, MatrixInstrAttr instr);

// `per_token_group<128>`: a #tj.kv_scale without its brackets, as !tj.kv_cache spells it.
KvScaleAttr parseKvScale(AsmParser& parser);
void printKvScale(AsmPrinter& printer, KvScaleAttr scale);

// Element types of views, caches and tiles of 8 bits that carry real numbers through a scale.
bool isEightBitElement(Type type);

}  // namespace mlir::tj
