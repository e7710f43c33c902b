#include "dialects/tj/TjDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::tj;

//===----------------------------------------------------------------------===//
// Tile shapes: `[block_n, 128]`
//===----------------------------------------------------------------------===//

// The ODS custom directive of tile shapes: an extent list, as in views and caches.
static ParseResult parseTileShape(OpAsmParser& parser, ArrayAttr& tile) {
  return parseExtentList(parser, tile);
}

static void printTileShape(OpAsmPrinter& printer, Operation*, ArrayAttr tile) {
  printExtentList(printer, tile);
}

#define GET_OP_CLASSES
#include "dialects/tj/TjOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

namespace {

TemplateOp enclosingTemplate(Operation* op) { return op->getParentOfType<TemplateOp>(); }

// A tile extent attribute must agree with the tensor extent it describes: a constant fixes
// it; a parameter name leaves it open until specialization.
LogicalResult verifyTileMatches(Operation* op, ArrayAttr tile, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) return op->emitOpError("result must be a ranked tensor (a tile)");
  if (tile.size() != static_cast<size_t>(tensor.getRank()))
    return op->emitOpError("tile shape has ") << tile.size() << " extents but the result "
                                              << tensor << " has rank " << tensor.getRank();
  for (auto [index, attr] : llvm::enumerate(tile)) {
    Extent extent = getExtent(attr);
    if (!extent.isConstant()) {
      if (extent.name.empty()) return op->emitOpError("tile extents must be integers or names");
      if (TemplateOp owner = enclosingTemplate(op)) {
        ParamOp param = owner.lookupParam(extent.name);
        if (!param || param.getKind() != ParamKind::Int)
          return op->emitOpError("tile extent '")
                 << extent.name << "' is not an integer parameter of the template";
      }
      continue;
    }
    if (extent.value <= 0) return op->emitOpError("tile extents must be positive");
    if (!tensor.isDynamicDim(index) && tensor.getDimSize(index) != extent.value)
      return op->emitOpError("tile extent ") << index << " is " << extent.value
                                             << " but the result type says "
                                             << tensor.getDimSize(index);
  }
  return success();
}

LogicalResult verifyIndexCount(Operation* op, size_t count, int64_t rank, StringRef what) {
  if (count != static_cast<size_t>(rank))
    return op->emitOpError("expects one ") << what << " per view axis (" << rank << "), got "
                                           << count;
  return success();
}

// Ops that compute a tile's elements from memory or indices produce the canonical layout;
// tj.convert_layout (or tj-assign-mma-layouts) moves them elsewhere.
LogicalResult verifyBlockedResult(Operation* op) {
  if (getTileLayout(op->getResult(0).getType()) != TileLayout::kBlocked)
    return op->emitOpError("produces a tile in the blocked layout; got ")
           << stringifyTileLayout(getTileLayout(op->getResult(0).getType()));
  return success();
}

// The paged ops address [blocks, block_size, kv_heads, head_size]; other ranks (a latent
// cache) are readable as views only until an op learns their shape.
LogicalResult verifyHeadAxis(Operation* op, KvCacheType cache) {
  if (cache.hasHeadAxis()) return success();
  return op->emitOpError("needs a cache with a head axis, [blocks, block_size, kv_heads, "
                         "head_size]; got ")
         << cache.getRank() << " extents (" << cache.getRole().getValue() << " cache)";
}

// Layouts of one op's tiles that name matrix instructions must name the same one.
LogicalResult verifySameInstruction(Operation* op, Type from, Type to) {
  MatrixInstrAttr a = getMatrixInstr(from), b = getMatrixInstr(to);
  if (a && b && a != b)
    return op->emitOpError("moves a tile between the fragments of ")
           << a.getName() << " and " << b.getName();
  return success();
}

// The values of the type parameter every `!tj.dtype<"p", width>` names must have that width,
// so that binding it keeps the width the template was verified with.
LogicalResult verifyDTypeWidths(TemplateOp templ) {
  LogicalResult result = success();
  auto check = [&](Operation* op, Type type) {
    type.walk([&](DTypeParamType param) {
      if (failed(result)) return;
      ParamOp owner = templ.lookupParam(param.getParam());
      if (!owner || owner.getKind() != ParamKind::Type || !owner.getValues()) return;
      // A storage type (width 0) takes 8- and 16-bit floats alike.
      if (param.getWidth() == 0) return;
      ArrayAttr values = *owner.getValues();
      for (Attribute value : values)
        if (auto typeAttr = dyn_cast<TypeAttr>(value);
            typeAttr && typeAttr.getValue().isIntOrFloat() &&
            typeAttr.getValue().getIntOrFloatBitWidth() != param.getWidth()) {
          result = op->emitOpError("!tj.dtype<\"")
                   << param.getParam() << "\", " << param.getWidth() << "> may be bound to "
                   << typeAttr.getValue() << " of " << typeAttr.getValue().getIntOrFloatBitWidth()
                   << " bits";
          return;
        }
    });
  };
  templ.walk([&](Operation* op) {
    for (Type type : op->getResultTypes()) check(op, type);
    for (Region& region : op->getRegions())
      for (Block& block : region)
        for (Type type : block.getArgumentTypes()) check(op, type);
    return failed(result) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result;
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) return tensor.getElementType();
  return type;
}

void addRead(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
}
void addWrite(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

// Checks that a region of a constraint/launch yields `count` values of `type` and that every
// op in it is one that can be evaluated without data.
LogicalResult verifyEvaluableRegion(Operation* op, Region& region, size_t count, Type type,
                                    StringRef what, bool allowShapeSymbols) {
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield) return op->emitOpError(what) << " region must end in tj.yield";
  if (yield.getValues().size() != count)
    return op->emitOpError(what) << " region must yield " << count << " value(s), got "
                                 << yield.getValues().size();
  for (Value value : yield.getValues())
    if (value.getType() != type)
      return op->emitOpError(what) << " region must yield " << type << ", got "
                                   << value.getType();
  WalkResult result = region.walk([&](Operation* inner) {
    if (isa<ShapeSymbolOp>(inner) && !allowShapeSymbols) {
      inner->emitOpError("cannot be used in the ")
          << what << " region: it may depend only on parameters and the target";
      return WalkResult::interrupt();
    }
    if (isa<ParamValueOp, ParamEqualsOp, TargetValueOp, ShapeSymbolOp, YieldOp>(inner) ||
        inner->getDialect()->getNamespace() == "arith")
      return WalkResult::advance();
    inner->emitOpError("cannot be used in the ")
        << what << " region: only tj.param_value, tj.param_equals, tj.target_value, "
        << (allowShapeSymbols ? "tj.shape_symbol, " : "") << "and arith ops can";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

}  // namespace

//===----------------------------------------------------------------------===//
// Template structure
//===----------------------------------------------------------------------===//

KernelOp TemplateOp::getKernel() {
  for (Operation& op : getBody().front())
    if (auto kernel = dyn_cast<KernelOp>(op)) return kernel;
  return {};
}

LaunchOp TemplateOp::getLaunch() {
  for (Operation& op : getBody().front())
    if (auto launch = dyn_cast<LaunchOp>(op)) return launch;
  return {};
}

ParamOp TemplateOp::lookupParam(StringRef name) {
  return dyn_cast_or_null<ParamOp>(::mlir::SymbolTable::lookupSymbolIn(*this, name));
}

SmallVector<ParamOp> TemplateOp::getParams() {
  SmallVector<ParamOp> params;
  for (Operation& op : getBody().front())
    if (auto param = dyn_cast<ParamOp>(op)) params.push_back(param);
  return params;
}

LogicalResult TemplateOp::verifyRegions() {
  int kernels = 0, launches = 0;
  for (Operation& op : getBody().front()) {
    if (isa<KernelOp>(op)) ++kernels;
    else if (isa<LaunchOp>(op)) ++launches;
    else if (!isa<ParamOp, ConstraintOp>(op))
      return op.emitOpError("is not allowed at the top of a template; expected tj.param, "
                            "tj.constraint, tj.launch or tj.kernel");
  }
  if (kernels != 1) return emitOpError("must hold exactly one tj.kernel, found ") << kernels;
  if (launches != 1) return emitOpError("must hold exactly one tj.launch, found ") << launches;
  return verifyDTypeWidths(*this);
}

bool ParamOp::admits(Attribute value) {
  switch (getKind()) {
    case ParamKind::Int: {
      auto integer = dyn_cast<IntegerAttr>(value);
      if (!integer) return false;
      if (auto range = getRange())
        return integer.getInt() >= (*range)[0] && integer.getInt() <= (*range)[1];
      return llvm::any_of(*getValues(), [&](Attribute allowed) {
        return cast<IntegerAttr>(allowed).getInt() == integer.getInt();
      });
    }
    case ParamKind::Type:
    case ParamKind::String:
      return llvm::is_contained(*getValues(), value);
  }
  return false;
}

std::string ParamOp::describeDomain() {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto range = getRange()) {
    os << (*range)[0] << ".." << (*range)[1];
    return text;
  }
  llvm::interleaveComma(*getValues(), os, [&](Attribute attr) {
    if (auto integer = dyn_cast<IntegerAttr>(attr)) os << integer.getInt();
    else if (auto str = dyn_cast<StringAttr>(attr)) os << str.getValue();
    else if (auto type = dyn_cast<TypeAttr>(attr)) os << type.getValue();
    else os << attr;
  });
  return text;
}

LogicalResult ParamOp::verify() {
  if (getValues().has_value() == getRange().has_value())
    return emitOpError("needs exactly one domain: `values [...]` or `range [lo, hi]`");
  if (auto range = getRange()) {
    if (getKind() != ParamKind::Int) return emitOpError("only int parameters take a range");
    if (range->size() != 2 || (*range)[0] > (*range)[1])
      return emitOpError("range must be [lo, hi] with lo <= hi");
  } else {
    ArrayAttr values = *getValues();  // not `*getValues()` in the for: the optional dies
    if (values.empty()) return emitOpError("domain must not be empty");
    for (Attribute value : values) {
      bool ok = (getKind() == ParamKind::Int && isa<IntegerAttr>(value)) ||
                (getKind() == ParamKind::Type && isa<TypeAttr>(value)) ||
                (getKind() == ParamKind::String && isa<StringAttr>(value));
      if (!ok)
        return emitOpError("value ") << value << " does not fit a parameter of kind '"
                                     << stringifyParamKind(getKind()) << "'";
    }
  }
  if (auto fallback = getDefaultValueAttr())
    if (!admits(fallback))
      return emitOpError("default ") << fallback << " is outside the domain "
                                     << describeDomain();
  return success();
}

LogicalResult ConstraintOp::verifyRegions() {
  return verifyEvaluableRegion(*this, getBody(), 1, IntegerType::get(getContext(), 1),
                               "constraint", /*allowShapeSymbols=*/false);
}

LogicalResult LaunchOp::verifyRegions() {
  Type index = IndexType::get(getContext());
  if (failed(verifyEvaluableRegion(*this, getGrid(), 3, index, "grid", true))) return failure();
  if (failed(verifyEvaluableRegion(*this, getThreads(), 1, index, "threads", false)))
    return failure();
  // Grid symbols must be symbols of the signature, so the runtime can bind them.
  KernelOp kernel = enclosingTemplate(*this).getKernel();
  llvm::StringSet<> symbols;
  if (kernel) {
    for (Type type : kernel.getBody().getArgumentTypes()) {
      ArrayAttr dims;
      if (auto view = dyn_cast<ViewType>(type)) dims = view.getDims();
      if (auto cache = dyn_cast<KvCacheType>(type)) dims = cache.getDims();
      if (dims)
        for (Attribute attr : dims)
          if (auto name = dyn_cast<StringAttr>(attr)) symbols.insert(name.getValue());
    }
  }
  WalkResult result = getGrid().walk([&](ShapeSymbolOp symbol) {
    if (symbols.contains(symbol.getSymbol())) return WalkResult::advance();
    symbol.emitOpError("names '") << symbol.getSymbol()
                                  << "', which is no extent of the kernel signature";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Kernel: `tj.kernel @name(%key: !tj.view<...>, %scale: f32) { ... }`
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser& parser, OperationState& result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name), result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> arguments;
  if (parser.parseArgumentList(arguments, AsmParser::Delimiter::Paren, /*allowType=*/true))
    return failure();
  SmallVector<Attribute> names;
  for (OpAsmParser::Argument& argument : arguments)
    names.push_back(parser.getBuilder().getStringAttr(argument.ssaName.name.drop_front()));
  result.addAttribute(getArgNamesAttrName(result.name), parser.getBuilder().getArrayAttr(names));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes)) return failure();
  Region* body = result.addRegion();
  if (parser.parseRegion(*body, arguments)) return failure();
  if (body->empty()) body->emplaceBlock();
  return success();
}

void KernelOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printSymbolName(getSymName());
  printer << '(';
  llvm::interleaveComma(getBody().getArguments(), printer,
                        [&](BlockArgument arg) { printer.printRegionArgument(arg); });
  printer << ')';
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                           {getSymNameAttrName(), getArgNamesAttrName()});
  printer << ' ';
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void KernelOp::getAsmBlockArgumentNames(Region& region, OpAsmSetValueNameFn setName) {
  for (auto [arg, name] : llvm::zip(region.getArguments(), getArgNames()))
    setName(arg, cast<StringAttr>(name).getValue());
}

LogicalResult KernelOp::verify() {
  Block& body = getBody().front();
  if (getArgNames().size() != body.getNumArguments())
    return emitOpError("has ") << body.getNumArguments() << " arguments but "
                               << getArgNames().size() << " names";
  llvm::StringSet<> seen;
  for (auto [arg, nameAttr] : llvm::zip(body.getArguments(), getArgNames())) {
    StringRef name = cast<StringAttr>(nameAttr).getValue();
    if (!seen.insert(name).second) return emitOpError("argument name '") << name << "' repeats";
    Type type = arg.getType();
    if (isa<ViewType, KvCacheType, IndexType, FloatType, IntegerType, DTypeParamType>(type))
      continue;
    return emitOpError("argument '") << name << "' has type " << type
                                     << "; expected a view, a kv_cache or a scalar";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

static LogicalResult verifyParamReference(Operation* op, StringRef name, ParamKind kind) {
  TemplateOp owner = enclosingTemplate(op);
  if (!owner) return op->emitOpError("must be inside a tj.template");
  ParamOp param = owner.lookupParam(name);
  if (!param) return op->emitOpError("references unknown parameter '") << name << "'";
  if (kind == ParamKind::Int && param.getKind() != ParamKind::Int)
    return op->emitOpError("parameter '") << name << "' is not an int parameter";
  if (kind != ParamKind::Int && param.getKind() == ParamKind::Int)
    return op->emitOpError("parameter '") << name << "' is an int parameter; use tj.param_value";
  return success();
}

LogicalResult ParamValueOp::verify() {
  return verifyParamReference(*this, getParam(), ParamKind::Int);
}

LogicalResult ParamEqualsOp::verify() {
  if (failed(verifyParamReference(*this, getParam(), ParamKind::String))) return failure();
  ParamOp param = enclosingTemplate(*this).lookupParam(getParam());
  if (!param.admits(getValue()))
    return emitOpError("compares '") << getParam() << "' with " << getValue()
                                     << ", which is outside its domain " << param.describeDomain();
  return success();
}

LogicalResult TargetValueOp::verify() {
  static const char* const kNames[] = {"warp_size", "multiprocessor_count", "shared_bytes",
                                       "max_threads"};
  if (llvm::is_contained(kNames, getName())) return success();
  return emitOpError("unknown target property '")
         << getName() << "'; known: warp_size, multiprocessor_count, shared_bytes, max_threads";
}

LogicalResult ShapeSymbolOp::verify() {
  if (getSymbol().empty()) return emitOpError("needs a symbol name");
  return success();
}

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

// The view a read before the wait reads, or null for an op that is not a plain read.
static Value readView(Operation& op) {
  if (auto load = dyn_cast<LoadScalarOp>(op)) return load.getView();
  if (auto load = dyn_cast<LoadOp>(op)) return load.getView();
  if (auto prefetch = dyn_cast<PrefetchOp>(op)) return prefetch.getView();
  return nullptr;
}

LogicalResult WaitPreviousKernelOp::verify() {
  llvm::SmallPtrSet<Value, 4> ready(getReady().begin(), getReady().end());
  for (Operation& prior : *getOperation()->getBlock()) {
    if (&prior == getOperation()) break;
    if (isMemoryEffectFree(&prior)) continue;
    if (Value view = readView(prior); view && ready.contains(view)) continue;
    return emitOpError("must precede every op that touches memory but reads of its ready views; '")
           << prior.getName() << "' comes first";
  }
  return success();
}

LogicalResult RangeOp::verify() {
  auto tensor = cast<RankedTensorType>(getType());
  if (getAxis() < 0 || getAxis() >= tensor.getRank())
    return emitOpError("axis ") << getAxis() << " is not an axis of a rank-" << tensor.getRank() << " tile";
  if (tensor.getElementType() != getStart().getType())
    return emitOpError("element type must match the start's type");
  return verifyTileMatches(*this, getTile(), getType());
}

LogicalResult FullOp::verify() {
  if (cast<RankedTensorType>(getType()).getElementType() != getValue().getType())
    return emitOpError("element type must match the value's type ") << getValue().getType();
  return verifyTileMatches(*this, getTile(), getType());
}

LogicalResult BroadcastOp::verify() {
  auto source = getSource().getType();
  auto result = cast<RankedTensorType>(getType());
  if (source.getRank() != result.getRank())
    return emitOpError("keeps the rank; use tj.expand_dims first");
  if (source.getElementType() != result.getElementType())
    return emitOpError("keeps the element type");
  for (int64_t d = 0; d < source.getRank(); ++d)
    if (!source.isDynamicDim(d) && !result.isDynamicDim(d) && source.getDimSize(d) != 1 &&
        source.getDimSize(d) != result.getDimSize(d))
      return emitOpError("axis ") << d << " of extent " << source.getDimSize(d)
                                  << " cannot broadcast to " << result.getDimSize(d);
  // A row value broadcast over the row lands in the fragments of that row.
  TileLayout from = getTileLayout(source), to = getTileLayout(result);
  bool ok = from == TileLayout::kMmaRows ? to == TileLayout::kMma
                                         : from == TileLayout::kBlocked && to == TileLayout::kBlocked;
  if (!ok)
    return emitOpError("broadcasts ") << stringifyTileLayout(from) << " to "
                                      << stringifyTileLayout(to)
                                      << "; only mma_rows -> mma and blocked -> blocked";
  if (failed(verifySameInstruction(*this, source, result))) return failure();
  return verifyTileMatches(*this, getTile(), getType());
}

LogicalResult ExpandDimsOp::verify() {
  auto source = getSource().getType();
  auto result = cast<RankedTensorType>(getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis > source.getRank())
    return emitOpError("axis ") << axis << " is outside [0, " << source.getRank() << "]";
  if (result.getRank() != source.getRank() + 1 || result.getDimSize(axis) != 1)
    return emitOpError("result must insert an axis of extent 1 at ") << axis;
  TileLayout from = getTileLayout(source), to = getTileLayout(result);
  bool rowsToColumn = from == TileLayout::kMmaRows && to == TileLayout::kMmaRows && axis == 1;
  if (from != TileLayout::kBlocked || to != TileLayout::kBlocked) {
    if (!rowsToColumn)
      return emitOpError("takes ") << stringifyTileLayout(from) << " to "
                                   << stringifyTileLayout(to)
                                   << "; only blocked -> blocked and mma_rows -> mma_rows at axis 1";
  }
  return verifySameInstruction(*this, source, result);
}

LogicalResult ReshapeOp::verify() {
  auto source = getSource().getType();
  auto result = cast<RankedTensorType>(getType());
  if (source.hasStaticShape() && result.hasStaticShape() &&
      source.getNumElements() != result.getNumElements())
    return emitOpError("changes the element count from ")
           << source.getNumElements() << " to " << result.getNumElements();
  if (getTileLayout(source) != TileLayout::kBlocked) return emitOpError("takes a blocked tile");
  if (failed(verifyBlockedResult(*this))) return failure();
  return verifyTileMatches(*this, getTile(), getType());
}

LogicalResult ConvertLayoutOp::verify() {
  auto source = getSource().getType();
  auto result = cast<RankedTensorType>(getType());
  if (source.getShape() != result.getShape() || source.getElementType() != result.getElementType())
    return emitOpError("keeps the shape and the element type");
  StringRef layout = getLayout();
  if (layout != "blocked" && layout != "mma" && layout != "mma_rows")
    return emitOpError("layout must be blocked, mma or mma_rows; got '") << layout << "'";
  if (stringifyTileLayout(getTileLayout(result)) != layout)
    return emitOpError("result type's layout is ")
           << stringifyTileLayout(getTileLayout(result)) << ", not " << layout;
  return success();
}

LogicalResult ReduceOp::verify() {
  auto source = getSource().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= source.getRank())
    return emitOpError("axis ") << axis << " is outside [0, " << source.getRank() << ")";
  TileLayout from = getTileLayout(source);
  if (from == TileLayout::kMmaRows)
    return emitOpError("cannot reduce an mma_rows tile; convert it to blocked first");
  if (from == TileLayout::kMma &&
      (axis != 1 || getTileLayout(getType()) != TileLayout::kMmaRows))
    return emitOpError("reduces an mma tile along axis 1 only, to an mma_rows tile");
  if (from == TileLayout::kBlocked && getTileLayout(getType()) != TileLayout::kBlocked)
    return emitOpError("of a blocked tile is blocked");
  if (failed(verifySameInstruction(*this, source, getType()))) return failure();
  if (source.getRank() == 1) {
    if (getType() != source.getElementType())
      return emitOpError("of a 1-D tile yields a scalar of type ") << source.getElementType();
    return success();
  }
  auto result = dyn_cast<RankedTensorType>(getType());
  if (!result || result.getRank() != source.getRank() - 1 ||
      result.getElementType() != source.getElementType())
    return emitOpError("result must drop axis ") << axis << " of " << source;
  return success();
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("takes 2-D tiles");
  if (!acc.getElementType().isF32() || getType() != acc)
    return emitOpError("accumulates in f32 and returns the accumulator's type");
  int64_t bK = getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t bN = getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  auto agree = [](int64_t x, int64_t y) {
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  if (!agree(a.getDimSize(1), bK))
    return emitOpError("contraction extents differ: ") << a.getDimSize(1) << " vs " << bK;
  if (!agree(a.getDimSize(0), acc.getDimSize(0)) || !agree(bN, acc.getDimSize(1)))
    return emitOpError("accumulator shape does not match the product");
  if (getTileLayout(b) != TileLayout::kBlocked || getTileLayout(a) == TileLayout::kMmaRows)
    return emitOpError("operand a is blocked or mma, operand b blocked");
  if (getTileLayout(acc) == TileLayout::kMmaRows)
    return emitOpError("accumulates in a blocked or mma tile");
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

// The shared-memory placement attributes come as a pair from the placement pass.
template <typename OpT>
static LogicalResult verifySharedPlacement(OpT op) {
  bool buffer = op.getSharedBuffer().has_value(), slots = op.getSharedSlots().has_value();
  if (!buffer && !slots) return success();
  if (buffer != slots) return op.emitOpError("shared_buffer and shared_slots go together");
  if (*op.getSharedBuffer() < 0 || *op.getSharedBuffer() >= 8)
    return op.emitOpError("shared_buffer must be in [0, 8)");
  if (*op.getSharedSlots() < 1 || *op.getSharedSlots() > 4)
    return op.emitOpError("shared_slots must be in [1, 4]");
  auto result = cast<RankedTensorType>(op.getType());
  const bool codes = isa<Float8E4M3FNType, Float8E5M2Type>(result.getElementType());
  if (result.getRank() != 2 || (result.getElementTypeBitWidth() != 16 && !codes))
    return op.emitOpError("only 2-D tiles of 16-bit elements or fp8 codes are placed in shared memory");
  return success();
}

LogicalResult LoadOp::verify() {
  auto view = getView().getType();
  auto result = cast<RankedTensorType>(getType());
  if (failed(verifyIndexCount(*this, getOffsets().size(), view.getRank(), "offset")))
    return failure();
  if (!getLimits().empty() &&
      failed(verifyIndexCount(*this, getLimits().size(), view.getRank(), "limit")))
    return failure();
  if (result.getRank() > view.getRank())
    return emitOpError("tile rank ") << result.getRank() << " exceeds the view's rank "
                                     << view.getRank();
  if (result.getElementType() != view.getElementType())
    return emitOpError("tile element type ") << result.getElementType()
                                             << " differs from the view's " << view.getElementType();
  if (getOther() && getOther().getType() != view.getElementType())
    return emitOpError("`other` must have the view's element type");
  if (failed(verifySharedPlacement(*this))) return failure();
  if (failed(verifyBlockedResult(*this))) return failure();
  return verifyTileMatches(*this, getTile(), getType());
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addRead(effects);
}

LogicalResult StoreOp::verify() {
  auto view = getView().getType();
  auto value = getValue().getType();
  if (failed(verifyIndexCount(*this, getOffsets().size(), view.getRank(), "offset")))
    return failure();
  if (!getLimits().empty() &&
      failed(verifyIndexCount(*this, getLimits().size(), view.getRank(), "limit")))
    return failure();
  if (value.getRank() > view.getRank())
    return emitOpError("tile rank exceeds the view's rank");
  if (value.getElementType() != view.getElementType())
    return emitOpError("tile element type ") << value.getElementType()
                                             << " differs from the view's " << view.getElementType();
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addWrite(effects);
}

LogicalResult LoadScalarOp::verify() {
  auto view = getView().getType();
  if (failed(verifyIndexCount(*this, getIndices().size(), view.getRank(), "index")))
    return failure();
  if (getType() != view.getElementType())
    return emitOpError("result type must be the view's element type ") << view.getElementType();
  return success();
}

void LoadScalarOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addRead(effects);
}

LogicalResult PrefetchOp::verify() {
  auto view = getView().getType();
  return verifyIndexCount(*this, getIndices().size(), view.getRank(), "index");
}

LogicalResult StoreScalarOp::verify() {
  auto view = getView().getType();
  if (failed(verifyIndexCount(*this, getIndices().size(), view.getRank(), "index")))
    return failure();
  if (getValue().getType() != view.getElementType())
    return emitOpError("value type must be the view's element type ") << view.getElementType();
  return success();
}

void StoreScalarOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addWrite(effects);
}

LogicalResult ArriveOp::verify() {
  auto view = getView().getType();
  if (failed(verifyIndexCount(*this, getIndices().size(), view.getRank(), "index")))
    return failure();
  if (!view.getElementType().isInteger(32))
    return emitOpError("counts in an i32 view, not ") << view.getElementType();
  return success();
}

void ArriveOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addRead(effects);
  addWrite(effects);
}

LogicalResult PagedLoadOp::verify() {
  auto cache = getCache().getType();
  auto table = getTable().getType();
  auto result = cast<RankedTensorType>(getType());
  if (table.getRank() != 2) return emitOpError("block table must be a 2-D view [seqs, blocks]");
  if (!table.getElementType().isInteger(32) && !table.getElementType().isInteger(64))
    return emitOpError("block table elements must be i32 or i64");
  if (result.getRank() != 2) return emitOpError("produces a [tokens, head_size] tile");
  if (result.getElementType() != cache.getElementType())
    return emitOpError("tile element type must be the cache's");
  if (failed(verifyHeadAxis(*this, cache))) return failure();
  Extent headSize = getExtent(cache.getDims()[3]);
  Extent tileWidth = getExtent(getTile()[1]);
  if (headSize.isConstant() && tileWidth.isConstant() && headSize.value != tileWidth.value)
    return emitOpError("tile width ") << tileWidth.value << " must be the head size "
                                      << headSize.value;
  if (!headSize.isConstant() && !tileWidth.isConstant() && headSize.name != tileWidth.name)
    return emitOpError("tile width '") << tileWidth.name << "' must be the head size '"
                                       << headSize.name << "'";
  if (failed(verifySharedPlacement(*this))) return failure();
  if (getSharedTransposed() && (!getSharedBuffer() || !cache.isShuffled() || cache.isKey()))
    return emitOpError("shared_transposed places a shuffled V tile: it needs shared_buffer and a "
                       "shuffled V cache");
  if (failed(verifyBlockedResult(*this))) return failure();
  return verifyTileMatches(*this, getTile(), getType());
}

void PagedLoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addRead(effects);
}

LogicalResult ClusterMergeStoreOp::verify() {
  auto view = getView().getType();
  auto partial = cast<RankedTensorType>(getPartial().getType());
  auto lse = cast<RankedTensorType>(getLse().getType());
  if (failed(verifyIndexCount(*this, getOffsets().size(), view.getRank(), "offset")))
    return failure();
  if (!getLimits().empty() &&
      failed(verifyIndexCount(*this, getLimits().size(), view.getRank(), "limit")))
    return failure();
  if (partial.getRank() != 2 || view.getRank() < 2)
    return emitOpError("merges a [rows, columns] partial over a view of rank >= 2");
  if (lse.getRank() != 1) return emitOpError("takes one LSE per row: a rank-1 tile");
  if (!partial.getElementType().isF32() || !lse.getElementType().isF32())
    return emitOpError("merges f32 partials and LSEs");
  if (!ShapedType::isDynamic(partial.getDimSize(0)) && !ShapedType::isDynamic(lse.getDimSize(0)) &&
      partial.getDimSize(0) != lse.getDimSize(0))
    return emitOpError("has ") << partial.getDimSize(0) << " partial rows but " << lse.getDimSize(0)
                               << " LSEs";
  return success();
}

void ClusterMergeStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addWrite(effects);
}

LogicalResult PagedStoreOp::verify() {
  auto cache = getCache().getType();
  auto value = getValue().getType();
  if (value.getRank() != 2) return emitOpError("stores a [kv_heads, head_size] tile");
  if (value.getElementType() != cache.getElementType())
    return emitOpError("tile element type must be the cache's");
  return verifyHeadAxis(*this, cache);
}

void PagedStoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>& effects) {
  addWrite(effects);
}
