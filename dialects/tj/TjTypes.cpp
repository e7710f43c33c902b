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
      parser.parseKeywordOrString(&layout))
    return {};
  KvScaleAttr scale;
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("scale") || parser.parseEqual() || !(scale = parseKvScale(parser)))
      return {};
  }
  if (parser.parseGreater()) return {};
  Builder builder(parser.getContext());
  return KvCacheType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                 parser.getContext(), builder.getStringAttr(role), dims,
                                 elementType, builder.getStringAttr(layout), scale);
}

void KvCacheType::print(AsmPrinter& printer) const {
  printer << '<' << getRole().getValue() << ", ";
  printExtentList(printer, getDims());
  printer << ", " << getElementType() << ", layout = ";
  printer.printKeywordOrString(getLayout().getValue());
  if (KvScaleAttr scale = getScale()) {
    printer << ", scale = ";
    printKvScale(printer, scale);
  }
  printer << '>';
}

LogicalResult KvCacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringAttr role, ArrayAttr dims, Type elementType,
                                  StringAttr layout, KvScaleAttr scale) {
  if (role.getValue() != "k" && role.getValue() != "v" && role.getValue() != "latent")
    return emitError() << "kv_cache role must be 'k', 'v' or 'latent', got '" << role.getValue()
                       << "'";
  if (dims.size() < 2 || dims.size() > 6)
    return emitError() << "kv_cache extents are [blocks, block_size, ...] with rank 2 to 6, got "
                       << dims.size() << " extents";
  if (layout.getValue() == "shuffled" && (dims.size() != 4 || role.getValue() == "latent"))
    return emitError() << "a shuffled kv_cache is a K or V cache [blocks, block_size, kv_heads, "
                          "head_size]; got role '"
                       << role.getValue() << "' with " << dims.size() << " extents";
  if (scale) {
    if (!isEightBitElement(elementType))
      return emitError() << "only a kv_cache of 8-bit elements (f8E4M3FN, f8E5M2, i8) takes a "
                            "scale; got "
                         << elementType;
    if (scale.getGranularity() == "per_head" && dims.size() != 4)
      return emitError() << "a per_head scale needs a head axis: [blocks, block_size, kv_heads, "
                            "head_size], got "
                         << dims.size() << " extents";
    Extent last = getExtent(dims[dims.size() - 1]);
    if (scale.isPerTokenGroup() && last.isConstant() && last.value % scale.getGroup() != 0)
      return emitError() << "per_token_group<" << scale.getGroup()
                         << "> must divide the last extent " << last.value;
  }
  return verifyExtents(emitError, dims, "kv_cache");
}

LogicalResult DTypeParamType::verify(function_ref<InFlightDiagnostic()> emitError,
                                     StringRef param, unsigned width) {
  if (width != 0 && width != 8 && width != 16 && width != 32)
    return emitError() << "!tj.dtype width must be 0 (storage), 8, 16 or 32, got " << width;
  return success();
}

// Until it is bound, the placeholder behaves like a float of its width: bf16 stands for the
// 16-bit types (f16, bf16), f8E4M3FN for the 8-bit ones (f8E4M3FN, f8E5M2) and for a storage
// type (width 0: 8 or 16 bits), which therefore only widens (arith.extf) before binding.
const llvm::fltSemantics& DTypeParamType::getFloatSemantics() const {
  if (getWidth() == 8 || getWidth() == 0) return llvm::APFloat::Float8E4M3FN();
  if (getWidth() == 32) return llvm::APFloat::IEEEsingle();
  return llvm::APFloat::BFloat();
}
