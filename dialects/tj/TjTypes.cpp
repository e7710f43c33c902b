#include "dialects/tj/TjDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tj;

// `[num_tokens, 8, head_size]`: integers and bare names.
ParseResult mlir::tj::parseExtentList(AsmParser& parser, ArrayAttr& dims) {
  SmallVector<Attribute> extents;
  auto parseOne = [&]() -> ParseResult {
    int64_t value;
    OptionalParseResult integer = parser.parseOptionalInteger(value);
    if (integer.has_value()) {
      if (failed(*integer)) return failure();
      extents.push_back(parser.getBuilder().getI64IntegerAttr(value));
      return success();
    }
    std::string name;
    if (parser.parseKeywordOrString(&name)) return failure();
    extents.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne)) return failure();
  dims = parser.getBuilder().getArrayAttr(extents);
  return success();
}

void mlir::tj::printExtentList(AsmPrinter& printer, ArrayAttr dims) {
  printer << '[';
  llvm::interleaveComma(dims, printer, [&](Attribute attr) {
    Extent extent = getExtent(attr);
    if (extent.isConstant()) printer << extent.value;
    else printer << extent.name;
  });
  printer << ']';
}

namespace {

LogicalResult verifyExtents(function_ref<InFlightDiagnostic()> emitError, ArrayAttr dims,
                            StringRef what) {
  for (Attribute attr : dims) {
    if (auto integer = dyn_cast<IntegerAttr>(attr)) {
      if (integer.getInt() < 0) return emitError() << what << " extent must be >= 0";
    } else if (!isa<StringAttr>(attr)) {
      return emitError() << what << " extents must be integers or names";
    }
  }
  return success();
}

}  // namespace

Type ViewType::parse(AsmParser& parser) {
  ArrayAttr dims;
  Type elementType;
  if (parser.parseLess() || parseExtentList(parser, dims) || parser.parseComma() ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return ViewType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                              parser.getContext(), dims, elementType);
}

void ViewType::print(AsmPrinter& printer) const {
  printer << '<';
  printExtentList(printer, getDims());
  printer << ", " << getElementType() << '>';
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError, ArrayAttr dims,
                               Type elementType) {
  if (dims.empty() || dims.size() > 6)
    return emitError() << "a view has rank 1 to 6, got " << dims.size();
  return verifyExtents(emitError, dims, "view");
}

Type KvCacheType::parse(AsmParser& parser) {
  std::string role;
  ArrayAttr dims;
  Type elementType;
  std::string layout;
  if (parser.parseLess() || parser.parseKeywordOrString(&role) || parser.parseComma() ||
      parseExtentList(parser, dims) || parser.parseComma() || parser.parseType(elementType) ||
      parser.parseComma() || parser.parseKeyword("layout") || parser.parseEqual() ||
      parser.parseKeywordOrString(&layout) || parser.parseGreater())
    return {};
  Builder builder(parser.getContext());
  return KvCacheType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                 parser.getContext(), builder.getStringAttr(role), dims,
                                 elementType, builder.getStringAttr(layout));
}

void KvCacheType::print(AsmPrinter& printer) const {
  printer << '<' << getRole().getValue() << ", ";
  printExtentList(printer, getDims());
  printer << ", " << getElementType() << ", layout = ";
  printer.printKeywordOrString(getLayout().getValue());
  printer << '>';
}

LogicalResult KvCacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringAttr role, ArrayAttr dims, Type elementType,
                                  StringAttr layout) {
  if (role.getValue() != "k" && role.getValue() != "v")
    return emitError() << "kv_cache role must be 'k' or 'v', got '" << role.getValue() << "'";
  if (dims.size() != 4)
    return emitError() << "kv_cache extents are [blocks, block_size, kv_heads, head_size], got "
                       << dims.size() << " extents";
  return verifyExtents(emitError, dims, "kv_cache");
}

// Until it is bound, the placeholder behaves like a 16-bit float (both f16 and bf16 are).
const llvm::fltSemantics& DTypeParamType::getFloatSemantics() const {
  return llvm::APFloat::BFloat();
}
