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

namespace {
// Aliases keep IR with mma tiles readable: `tensor<16x32xf32, #mma>` with
// `#mma = #tj.mma<#mma_sync_m16n8k16>` and the instruction spelled out once.
struct TjOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream& os) const override {
    if (auto instr = dyn_cast<MatrixInstrAttr>(attr)) {
      for (char c : instr.getName()) os << (llvm::isAlnum(c) ? c : '_');
      return AliasResult::FinalAlias;
    }
    if (isa<MmaEncodingAttr>(attr)) {
      os << "mma";
      return AliasResult::OverridableAlias;
    }
    if (isa<MmaRowsEncodingAttr>(attr)) {
      os << "mma_rows";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
}  // namespace

void TjDialect::initialize() {
  addInterfaces<TjOpAsmInterface>();
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

// ---- matrix instructions -----------------------------------------------------------------

namespace {

// `[[0, 1], [8, 0]]`: (row, col) pairs, flattened.
ParseResult parseBases(AsmParser& parser, SmallVectorImpl<int64_t>& bases) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
    int64_t row, col;
    if (parser.parseLSquare() || parser.parseInteger(row) || parser.parseComma() ||
        parser.parseInteger(col) || parser.parseRSquare())
      return failure();
    bases.append({row, col});
    return success();
  });
}

void printBases(AsmPrinter& printer, ArrayRef<int64_t> bases) {
  printer << '[';
  for (size_t i = 0; i < bases.size(); i += 2)
    printer << (i ? ", [" : "[") << bases[i] << ", " << bases[i + 1] << ']';
  printer << ']';
}

bool isPowerOfTwo(int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

}  // namespace

Attribute FragmentLayoutAttr::parse(AsmParser& parser, Type) {
  SmallVector<int64_t> registers, lanes;
  if (parser.parseLess() || parser.parseKeyword("reg") || parser.parseEqual() ||
      parseBases(parser, registers) || parser.parseComma() || parser.parseKeyword("lane") ||
      parser.parseEqual() || parseBases(parser, lanes) || parser.parseGreater())
    return {};
  return FragmentLayoutAttr::get(parser.getContext(), registers, lanes);
}

void FragmentLayoutAttr::print(AsmPrinter& printer) const {
  printer << "<reg = ";
  printBases(printer, getRegisterBases());
  printer << ", lane = ";
  printBases(printer, getLaneBases());
  printer << '>';
}

std::array<int64_t, 2> FragmentLayoutAttr::elementAt(int64_t lane, int64_t element) const {
  std::array<int64_t, 2> at = {0, 0};
  auto add = [&](ArrayRef<int64_t> bases, int64_t index) {
    for (size_t bit = 0; bit < bases.size() / 2; ++bit)
      if ((index >> bit) & 1) {
        at[0] ^= bases[2 * bit];
        at[1] ^= bases[2 * bit + 1];
      }
  };
  add(getRegisterBases(), element);
  add(getLaneBases(), lane);
  return at;
}

std::string FragmentLayoutAttr::coverageProblem(int64_t rows, int64_t cols) const {
  std::string problem;
  llvm::raw_string_ostream os(problem);
  ArrayRef<int64_t> registers = getRegisterBases(), lanes = getLaneBases();
  int64_t replication = 1;
  for (ArrayRef<int64_t> bases : {registers, lanes})
    for (size_t i = 0; i < bases.size(); i += 2)
      if (bases[i] == 0 && bases[i + 1] == 0) replication *= 2;
  const int64_t elements = int64_t(1) << getRegisterBits(), laneCount = int64_t(1) << getLaneBits();
  if (elements * laneCount != rows * cols * replication) {
    os << elements << " elements in each of " << laneCount << " lanes cannot hold a " << rows
       << "x" << cols << " tile " << replication << " time(s)";
    return problem;
  }
  std::vector<int64_t> owners(rows * cols, 0);
  for (int64_t lane = 0; lane < laneCount; ++lane)
    for (int64_t element = 0; element < elements; ++element) {
      auto [row, col] = elementAt(lane, element);
      if (row < 0 || row >= rows || col < 0 || col >= cols) {
        os << "lane " << lane << " element " << element << " holds (" << row << ", " << col
           << "), outside the " << rows << "x" << cols << " tile";
        return problem;
      }
      ++owners[row * cols + col];
    }
  for (int64_t i = 0; i < rows * cols; ++i)
    if (owners[i] != replication) {
      os << "element (" << i / cols << ", " << i % cols << ") is held " << owners[i]
         << " time(s), not " << replication;
      return problem;
    }
  return problem;
}

LogicalResult MatrixInstrAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      StringRef name, int64_t m, int64_t n, int64_t k,
                                      int64_t lanes, FragmentLayoutAttr a, FragmentLayoutAttr b,
                                      FragmentLayoutAttr acc) {
  for (int64_t extent : {m, n, k, lanes})
    if (!isPowerOfTwo(extent))
      return emitError() << "matrix_instr '" << name
                         << "': m, n, k and lanes must be powers of two, got " << m << ", " << n
                         << ", " << k << ", " << lanes;
  struct Operand {
    const char* what;
    FragmentLayoutAttr layout;
    int64_t rows, cols;
  };
  for (const Operand& operand : {Operand{"a", a, m, k}, Operand{"b", b, k, n},
                                 Operand{"acc", acc, m, n}}) {
    if (!operand.layout) continue;
    if ((int64_t(1) << operand.layout.getLaneBits()) != lanes)
      return emitError() << "matrix_instr '" << name << "': " << operand.what << " has "
                         << operand.layout.getLaneBits() << " lane bases; " << lanes
                         << " lanes need " << llvm::Log2_64(lanes);
    std::string problem = operand.layout.coverageProblem(operand.rows, operand.cols);
    if (!problem.empty())
      return emitError() << "matrix_instr '" << name << "': " << operand.what << " ["
                         << operand.rows << ", " << operand.cols << "]: " << problem;
  }
  return success();
}

// ---- cache scales ----------------------------------------------------------------------

KvScaleAttr mlir::tj::parseKvScale(AsmParser& parser) {
  std::string granularity;
  int64_t group = 0;
  if (parser.parseKeywordOrString(&granularity)) return {};
  if (succeeded(parser.parseOptionalLess()) &&
      (parser.parseInteger(group) || parser.parseGreater()))
    return {};
  return KvScaleAttr::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                 parser.getContext(), granularity, group);
}

void mlir::tj::printKvScale(AsmPrinter& printer, KvScaleAttr scale) {
  printer << scale.getGranularity();
  if (scale.isPerTokenGroup()) printer << '<' << scale.getGroup() << '>';
}

Attribute KvScaleAttr::parse(AsmParser& parser, Type) {
  KvScaleAttr scale;
  if (parser.parseLess() || !(scale = parseKvScale(parser)) || parser.parseGreater()) return {};
  return scale;
}

void KvScaleAttr::print(AsmPrinter& printer) const {
  printer << '<';
  printKvScale(printer, *this);
  printer << '>';
}

LogicalResult KvScaleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringRef granularity, int64_t group) {
  if (granularity == "per_token_group") {
    if (group <= 0) return emitError() << "per_token_group<G> needs a group size G > 0";
    return success();
  }
  if (granularity != "per_tensor" && granularity != "per_head")
    return emitError() << "scale must be per_tensor, per_head or per_token_group<G>, got '"
                       << granularity << "'";
  if (group != 0) return emitError() << granularity << " takes no group size";
  return success();
}

bool mlir::tj::isEightBitElement(Type type) {
  if (auto param = dyn_cast<DTypeParamType>(type)) return param.getWidth() == 8;
  return isa<Float8E4M3FNType, Float8E5M2Type>(type) || type.isInteger(8);
}

// ---- tile layouts -------------------------------------------------------------------------

namespace {
// Extents that are still parameters (dynamic) are checked once specialization fixed them.
bool multipleOf(int64_t extent, int64_t unit) {
  return ShapedType::isDynamic(extent) || extent % unit == 0;
}
}  // namespace

std::string mlir::tj::tileLayoutProblem(ArrayRef<int64_t> shape, TileLayout layout,
                                        MatrixInstrAttr instr) {
  const int64_t m = instr ? instr.getM() : 1, n = instr ? instr.getN() : 1;
  const std::string of = instr ? " of " + instr.getName().str() : std::string();
  switch (layout) {
    case TileLayout::kBlocked: return {};
    case TileLayout::kMma:
      if (shape.size() != 2) return "#tj.mma needs a 2-D tile";
      if (!multipleOf(shape[0], m) || !multipleOf(shape[1], n))
        return "#tj.mma" + of + " needs rows a multiple of " + std::to_string(m) +
               " and columns a multiple of " + std::to_string(n);
      return {};
    case TileLayout::kMmaRows: {
      bool column = shape.size() == 2 && (ShapedType::isDynamic(shape[1]) || shape[1] == 1);
      if (shape.size() != 1 && !column) return "#tj.mma_rows needs an [M] or [M, 1] tile";
      if (!multipleOf(shape[0], m))
        return "#tj.mma_rows" + of + " needs rows a multiple of " + std::to_string(m);
      return {};
    }
  }
  return {};
}

LogicalResult MmaEncodingAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                              function_ref<InFlightDiagnostic()> emitError) const {
  std::string problem = tileLayoutProblem(shape, TileLayout::kMma, getInstr());
  if (!problem.empty()) return emitError() << problem;
  return success();
}

LogicalResult MmaRowsEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type, function_ref<InFlightDiagnostic()> emitError) const {
  std::string problem = tileLayoutProblem(shape, TileLayout::kMmaRows, getInstr());
  if (!problem.empty()) return emitError() << problem;
  return success();
}

TileLayout mlir::tj::getTileLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding()) return TileLayout::kBlocked;
  if (isa<MmaEncodingAttr>(tensor.getEncoding())) return TileLayout::kMma;
  if (isa<MmaRowsEncodingAttr>(tensor.getEncoding())) return TileLayout::kMmaRows;
  return TileLayout::kBlocked;
}

MatrixInstrAttr mlir::tj::getMatrixInstr(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getEncoding()) return {};
  if (auto mma = dyn_cast<MmaEncodingAttr>(tensor.getEncoding())) return mma.getInstr();
  if (auto rows = dyn_cast<MmaRowsEncodingAttr>(tensor.getEncoding())) return rows.getInstr();
  return {};
}

Type mlir::tj::withTileLayout(Type type, TileLayout layout, MatrixInstrAttr instr) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) return type;
  Attribute encoding;
  if (layout == TileLayout::kMma) encoding = MmaEncodingAttr::get(type.getContext(), instr);
  if (layout == TileLayout::kMmaRows) encoding = MmaRowsEncodingAttr::get(type.getContext(), instr);
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
