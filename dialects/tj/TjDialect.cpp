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

void TjDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tj/TjTypes.cpp.inc"
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
