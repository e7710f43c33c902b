#include "dialects/tj/TjDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tj;

#include "dialects/tj/TjDialect.cpp.inc"
#include "dialects/tj/TjEnums.cpp.inc"
// Type storage must live in the TU that registers the types; parsers are in TjTypes.cpp.
#define GET_TYPEDEF_CLASSES
#include "dialects/tj/TjTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dialects/tj/TjAttrs.cpp.inc"

void TjDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tj/TjTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/tj/TjAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tj/TjOps.cpp.inc"
      >();
}

void mlir::tj::registerTilejitDialects(DialectRegistry& registry) {
  registry.insert<TjDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect>();
}

Extent mlir::tj::getExtent(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr)) return {integer.getInt(), {}};
  if (auto name = dyn_cast<StringAttr>(attr)) return {ShapedType::kDynamic, name.getValue()};
  return {};
}

// ---- tile layouts -------------------------------------------------------------------------

namespace {
// Extents that are still parameters (dynamic) are checked once specialization fixed them.
bool multipleOf(int64_t extent, int64_t unit) {
  return ShapedType::isDynamic(extent) || extent % unit == 0;
}
}  // namespace

const char* mlir::tj::tileLayoutProblem(ArrayRef<int64_t> shape, TileLayout layout) {
  switch (layout) {
    case TileLayout::kBlocked: return nullptr;
    case TileLayout::kMma:
      if (shape.size() != 2) return "#tj.mma needs a 2-D tile";
      if (!multipleOf(shape[0], 16) || !multipleOf(shape[1], 8))
        return "#tj.mma needs rows a multiple of 16 and columns a multiple of 8";
      return nullptr;
    case TileLayout::kMmaRows: {
      bool column = shape.size() == 2 && (ShapedType::isDynamic(shape[1]) || shape[1] == 1);
      if (shape.size() != 1 && !column) return "#tj.mma_rows needs an [M] or [M, 1] tile";
      if (!multipleOf(shape[0], 16)) return "#tj.mma_rows needs rows a multiple of 16";
      return nullptr;
    }
  }
  return nullptr;
}

LogicalResult MmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                              function_ref<InFlightDiagnostic()> emitError) const {
  if (const char* problem = tileLayoutProblem(shape, TileLayout::kMma)) return emitError() << problem;
  return success();
}

LogicalResult MmaRowsEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  if (const char* problem = tileLayoutProblem(shape, TileLayout::kMmaRows)) return emitError() << problem;
  return success();
}

TileLayout mlir::tj::getTileLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding()) return TileLayout::kBlocked;
  if (isa<MmaEncodingAttr>(tensor.getEncoding())) return TileLayout::kMma;
  if (isa<MmaRowsEncodingAttr>(tensor.getEncoding())) return TileLayout::kMmaRows;
  return TileLayout::kBlocked;
}

Type mlir::tj::withTileLayout(Type type, TileLayout layout) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) return type;
  Attribute encoding;
  if (layout == TileLayout::kMma) encoding = MmaEncodingAttr::get(type.getContext());
  if (layout == TileLayout::kMmaRows) encoding = MmaRowsEncodingAttr::get(type.getContext());
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), encoding);
}

StringRef mlir::tj::stringifyTileLayout(TileLayout layout) {
  switch (layout) {
    case TileLayout::kMma: return "mma";
    case TileLayout::kMmaRows: return "mma_rows";
    case TileLayout::kBlocked: break;
  }
  return "blocked";
}
