#include "compiler/emit/cpp_emitter.h"

#include <cstring>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/placed_tiles.h"
#include "compiler/backends/registry.h"
#include "compiler/emit/kernel_signature.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "support/status.h"

namespace tilejit {

using namespace mlir;

namespace {

absl::Status unsupported(Operation* op, const std::string& why = "") {
  std::string location;
  llvm::raw_string_ostream(location) << op->getLoc();
  return absl::UnimplementedError(absl::StrCat("cannot emit ", op->getName().getStringRef().str(),
                                               " at ", location, why.empty() ? "" : ": ",
                                               std::string(why)));
}

// The block size of a paged load's cache where the specialization fixed it (the library then
// shifts and masks instead of dividing), else 0: known at run time only.
int64_t fixedBlockSize(tj::PagedLoadOp load) {
  tj::Extent extent = tj::getExtent(load.getCache().getType().getDims()[1]);
  return extent.isConstant() ? extent.value : 0;
}

// Writes the body of one kernel. Scalars become C++ locals with operators; tiles become
// tj::Tile values transformed by device-library calls.
class BodyEmitter {
 public:
  BodyEmitter(tj::KernelOp kernel, const CompilerBackend& backend, std::string& out)
      : kernel_(kernel), backend_(backend), out_(out) {
    for (auto [arg, name] : llvm::zip(kernel.getBody().getArguments(), kernel.getArgNames())) {
      std::string field = cast<StringAttr>(name).getValue().str();
      Type type = arg.getType();
      // Integer scalars travel as int64 slots (kernel ABI); narrow them where used.
      if (auto integer = dyn_cast<IntegerType>(type); integer && integer.getWidth() != 64)
        names_[arg] = absl::StrCat(cppType(type).value_or("int64_t"), "(args.", field, ")");
      else
        names_[arg] = "args." + field;
      usedNames_.insert(field);
    }
    kernel.walk([&](tj::ReduceOp reduce) {
      if (tj::getTileLayout(reduce.getSource().getType()) == tj::TileLayout::kMma)
        exchangeRows_ = std::max(exchangeRows_, cast<RankedTensorType>(reduce.getSource().getType()).getDimSize(0));
    });
  }

  // Tiles the placement pass put in shared memory (placed loads' results and the loop values
  // they are carried through) and their buffers' offsets in the kernel's dynamic shared
  // memory (buffers in id order, each on a 128-byte line by construction). Call before emitKernelBody.
  void findSharedTiles() {
    shared_ = placedTileValues(kernel_);
    transposed_ = placedTileValues(kernel_, /*transposedOnly=*/true);
    for (auto [buffer, bytes] : backend_.placedBufferSizes(kernel_)) {
      bufferOffsets_[buffer] = dynamicSharedBytes_;
      dynamicSharedBytes_ += bytes;
    }
  }

  int64_t dynamicSharedBytes() const { return dynamicSharedBytes_; }

  // The kernel's body: the per-kernel objects (async copy record, row exchange, a cluster
  // merge's setup) declared once at its top, then its ops.
  absl::Status emitKernelBody(Block& block, int indent) {
    if (!shared_.empty()) {
      // One record of the kernel's asynchronous copies: placed loads commit to it, dots wait
      // on it for the copies they read.
      async_ = uniqueName("async_copies");
      line(indent, absl::StrCat("tj::AsyncCopies ", async_, ";"));
    }
    if (exchangeRows_ > 0) {
      // The ring through which mma row reductions exchange partial rows between warps.
      exchange_ = uniqueName("row_exchange");
      line(indent, absl::StrCat("tj::RowExchange ", exchange_, ";"));
    }
    // A cluster merge may set up its synchronization here (the merge by push does; the
    // library decides by the tiles it merges).
    tj::ClusterMergeStoreOp merge;
    kernel_.walk([&](tj::ClusterMergeStoreOp op) { merge = op; });
    if (merge) {
      TJ_ASSIGN_OR_RETURN(std::string partial, valueType(merge.getPartial()));
      TJ_ASSIGN_OR_RETURN(std::string lse, valueType(merge.getLse()));
      line(indent, absl::StrCat("tj::cluster_merge_begin<TJ_CLUSTER_PROGRAMS, ", partial, ", ", lse, ">();"));
    }
    for (Operation& op : block) TJ_RETURN_IF_ERROR(emitOp(op, indent));
    return absl::OkStatus();
  }

  // The most rows an mma row reduction of the kernel reduces (0: none): the size of the
  // library's row-exchange ring (TJ_ROW_EXCHANGE_ROWS).
  int64_t rowExchangeRows() const { return exchangeRows_; }

  static absl::StatusOr<std::string> cppType(Type type) {
    if (type.isF32()) return std::string("float");
    if (type.isF64()) return std::string("double");
    if (type.isF16()) return std::string("tj::f16");
    if (type.isBF16()) return std::string("tj::bf16");
    if (isa<Float8E4M3FNType>(type)) return std::string("tj::f8e4m3");
    if (isa<Float8E5M2Type>(type)) return std::string("tj::f8e5m2");
    if (type.isInteger(1)) return std::string("bool");
    if (type.isInteger(8)) return std::string("int8_t");
    if (type.isInteger(32)) return std::string("int32_t");
    if (type.isInteger(64) || type.isIndex()) return std::string("int64_t");
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      TJ_ASSIGN_OR_RETURN(std::string element, cppType(tensor.getElementType()));
      const char* kind = "tj::Tile<";
      if (tj::getTileLayout(tensor) == tj::TileLayout::kMma) kind = "tj::MmaTile<";
      if (tj::getTileLayout(tensor) == tj::TileLayout::kMmaRows) kind = "tj::MmaRows<";
      return absl::StrCat(kind, element, ", ", absl::StrJoin(tensor.getShape(), ", "), ">");
    }
    if (auto view = dyn_cast<tj::ViewType>(type)) {
      TJ_ASSIGN_OR_RETURN(std::string element, cppType(view.getElementType()));
      return absl::StrCat("tj::View<", element, ", ", view.getRank(), ">");
    }
    if (auto cache = dyn_cast<tj::KvCacheType>(type)) {
      TJ_ASSIGN_OR_RETURN(std::string element, cppType(cache.getElementType()));
      // A shuffled cache splits its innermost 16 bytes off an axis: one more.
      return absl::StrCat("tj::View<", element, ", ", cache.getRank() + (cache.isShuffled() ? 1 : 0), ">");
    }
    std::string text;
    llvm::raw_string_ostream(text) << type;
    return absl::UnimplementedError(absl::StrCat("no C++ type for ", text));
  }

 private:
  // A readable, unique C++ name for a value: the template's SSA name when the parser kept it.
  std::string define(Value value, std::string_view hint = "") {
    std::string base = templateName(value);
    if (base.empty()) base = hint.empty() ? absl::StrCat("tmp", unnamed_++) : std::string(hint);
    std::string unique = uniqueName(base);
    names_[value] = unique;
    return unique;
  }

  // The template's SSA name of a value when the parser kept it, else "".
  static std::string templateName(Value value) {
    if (auto loc = dyn_cast<NameLoc>(value.getLoc())) return loc.getName().str();
    if (Operation* op = value.getDefiningOp())
      if (auto loc = dyn_cast<NameLoc>(op->getLoc())) return loc.getName().str();
    return "";
  }

  // A C++ identifier from `base` not used before in this kernel.
  std::string uniqueName(const std::string& base) {
    std::string name;
    for (char c : base) name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "v" + name;
    std::string unique = name;
    for (int i = 1; !usedNames_.insert(unique).second; ++i) unique = absl::StrCat(name, "_", i);
    return unique;
  }

  const std::string& use(Value value) { return names_[value]; }

  // The C++ type of a value: its type's, or a shared-memory tile.
  absl::StatusOr<std::string> valueType(Value value) {
    if (!shared_.contains(value)) return cppType(value.getType());
    auto tensor = cast<RankedTensorType>(value.getType());
    // A widening of placed codes holds the codes (the dot widens them as it reads).
    TJ_ASSIGN_OR_RETURN(std::string element,
                        cppType(cast<RankedTensorType>(placedStorage(value).getType()).getElementType()));
    SmallVector<int64_t> shape(tensor.getShape());
    if (transposed_.contains(value)) std::swap(shape[0], shape[1]);  // [cols, rows] there
    return absl::StrCat("tj::SharedTile<", element, ", ", absl::StrJoin(shape, ", "), ">");
  }

  bool readsShared(Operation& op) {
    return llvm::any_of(op.getOperands(), [&](Value v) { return shared_.contains(v); });
  }

  // An earlier placed load in `load`'s block that looks up the same rows: same table,
  // sequence, first token and limit, a tile of the same shape and element type, from a cache
  // of the same layout and dimensions (K and V of one step). Null if none.
  tj::PagedLoadOp samePagedRows(tj::PagedLoadOp load) {
    auto cache = load.getCache().getType();
    for (Operation& earlier : *load->getBlock()) {
      if (&earlier == load.getOperation()) break;
      auto other = dyn_cast<tj::PagedLoadOp>(earlier);
      if (!other || !other.getSharedBuffer() || other.getSharedTransposed()) continue;
      auto otherCache = other.getCache().getType();
      if (other.getTable() == load.getTable() && other.getSeq() == load.getSeq() &&
          other.getStart() == load.getStart() && other.getLimit() == load.getLimit() &&
          other.getType() == load.getType() && otherCache.getDims() == cache.getDims() &&
          otherCache.getElementType() == cache.getElementType() &&
          otherCache.getLayout() == cache.getLayout())
        return other;
    }
    return nullptr;
  }

  // `buffer, slots, offset` of a placed load.
  std::string placement(Operation& op) {
    auto buffer = op.getAttrOfType<IntegerAttr>("shared_buffer").getInt();
    auto slots = op.getAttrOfType<IntegerAttr>("shared_slots").getInt();
    return absl::StrCat(buffer, ", ", slots, ", ", bufferOffsets_[buffer]);
  }

  void line(int indent, std::string_view text) {
    out_.append(indent * 2, ' ');
    out_.append(text);
    out_ += '\n';
  }

  absl::Status assign(Operation& op, int indent, const std::string& expr) {
    TJ_ASSIGN_OR_RETURN(std::string type, valueType(op.getResult(0)));
    std::string name = define(op.getResult(0));
    line(indent, absl::StrCat("const ", type, " ", name, " = ", expr, ";"));
    return absl::OkStatus();
  }

  std::string operandList(Operation& op) {
    std::vector<std::string> operands;
    for (Value operand : op.getOperands()) operands.push_back(use(operand));
    return absl::StrJoin(operands, ", ");
  }

  // A tile of `type` with every element `value`: tj::full for canonical tiles, tj::splat
  // (which takes the tile type) for the mma layouts.
  static absl::StatusOr<std::string> splat(Type type, const std::string& value) {
    auto tensor = cast<RankedTensorType>(type);
    if (tj::getTileLayout(tensor) != tj::TileLayout::kBlocked) {
      TJ_ASSIGN_OR_RETURN(std::string tile, cppType(tensor));
      return absl::StrCat("tj::splat<", tile, ">(", value, ")");
    }
    TJ_ASSIGN_OR_RETURN(std::string element, cppType(tensor.getElementType()));
    return absl::StrCat("tj::full<", element, ", ", shapeList(type), ">(", value, ")");
  }

  static std::string shapeList(Type type) {
    return absl::StrJoin(cast<RankedTensorType>(type).getShape(), ", ");
  }

  absl::StatusOr<std::string> literal(Attribute attr) {
    if (auto integer = dyn_cast<IntegerAttr>(attr)) {
      if (integer.getType().isInteger(1)) return std::string(integer.getInt() ? "true" : "false");
      TJ_ASSIGN_OR_RETURN(std::string type, cppType(integer.getType()));
      return absl::StrCat(type, "(", integer.getInt(), "LL)");
    }
    if (auto real = dyn_cast<FloatAttr>(attr)) {
      Type type = real.getType();
      if (type.isF64()) {
        double value = real.getValueAsDouble();
        uint64_t bits;
        std::memcpy(&bits, &value, 8);
        return absl::StrFormat("tj::f64_from_bits(0x%016xull)", bits);
      }
      float value = static_cast<float>(real.getValueAsDouble());
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      std::string f32 = absl::StrFormat("tj::f32_from_bits(0x%08xu) /* %g */", bits, value);
      if (type.isF32()) return f32;
      TJ_ASSIGN_OR_RETURN(std::string cpp, cppType(type));
      return absl::StrCat("tj::cast<", cpp, ">(", f32, ")");
    }
    return absl::UnimplementedError("unsupported constant attribute");
  }

  // view.shape[d] of the first argument whose signature names the shape symbol.
  absl::StatusOr<std::string> shapeSymbolExpr(StringRef symbol) {
    for (auto [arg, name] : llvm::zip(kernel_.getBody().getArguments(), kernel_.getArgNames())) {
      if (!isa<tj::ViewType, tj::KvCacheType>(arg.getType())) continue;
      TJ_ASSIGN_OR_RETURN(std::vector<DimSpec> dims, physicalDims(arg.getType()));
      for (size_t d = 0; d < dims.size(); ++d)
        if (dims[d].symbol == symbol)
          return absl::StrCat("args.", cast<StringAttr>(name).getValue().str(), ".shape[", d, "]");
    }
    return absl::InvalidArgumentError(
        absl::StrCat("shape symbol '", symbol.str(), "' is no extent of the kernel signature"));
  }

  std::string indexList(ValueRange values) {
    std::vector<std::string> items;
    for (Value value : values) items.push_back(use(value));
    return absl::StrCat("tj::Index<", values.size(), ">{", absl::StrJoin(items, ", "), "}");
  }

  std::string limitList(Value view, ValueRange limits, int64_t rank) {
    if (!limits.empty()) return indexList(limits);
    std::vector<std::string> items;
    for (int64_t d = 0; d < rank; ++d) items.push_back(absl::StrCat(use(view), ".shape[", d, "]"));
    return absl::StrCat("tj::Index<", rank, ">{", absl::StrJoin(items, ", "), "}");
  }

  // Whether a placed load's rows are whole 16-byte pieces that need no column mask: the tile
  // spans the view's innermost extent from offset 0 (a limit, if given, is at least that) and
  // that extent is a multiple of 16 bytes, which the launch check turns into 16-byte aligned
  // rows (runtime/launch.cpp, vector_bytes); masked rows are zero-filled copies, so `other`
  // must be absent or 0. The library then copies rows without its run-time alignment test
  // and per-element fallback.
  static bool loadsWholeRows(tj::LoadOp load) {
    if (Value other = load.getOther()) {
      FloatAttr value;
      if (!matchPattern(other, m_Constant(&value)) || !value.getValue().isZero()) return false;
    }
    auto view = load.getView().getType();
    auto tile = cast<RankedTensorType>(load.getType());
    int64_t rank = view.getRank();
    auto extent = dyn_cast<IntegerAttr>(view.getDims()[rank - 1]);
    int64_t columns = tile.getDimSize(tile.getRank() - 1);
    if (!extent || extent.getInt() != columns) return false;
    if ((columns * tile.getElementTypeBitWidth() / 8) % 16 != 0) return false;
    std::optional<int64_t> offset = getConstantIntValue(load.getOffsets()[rank - 1]);
    if (!offset || *offset != 0) return false;
    if (load.getLimits().empty()) return true;
    std::optional<int64_t> limit = getConstantIntValue(load.getLimits()[rank - 1]);
    return limit && *limit >= columns;
  }

  static std::string cacheLayout(tj::KvCacheType cache) {
    if (!cache.isShuffled()) return "tj::CacheLayout::Standard";
    return cache.isKey() ? "tj::CacheLayout::ShuffledK" : "tj::CacheLayout::ShuffledV";
  }

  absl::Status emitOp(Operation& op, int indent);
  absl::Status emitArith(Operation& op, int indent);
  absl::Status emitFor(scf::ForOp loop, int indent);
  absl::Status emitIf(scf::IfOp branch, int indent);

  tj::KernelOp kernel_;
  const CompilerBackend& backend_;
  std::string& out_;
  llvm::DenseMap<Value, std::string> names_;
  llvm::DenseSet<Value> shared_;
  llvm::DenseSet<Value> transposed_;  // placed [cols, rows]: a dot reads them as b the other way
  // The tj::PagedRows variable of each placed paged load emitted so far.
  llvm::DenseMap<Operation*, std::string> pagedRows_;
  std::map<int64_t, int64_t> bufferOffsets_;
  int64_t dynamicSharedBytes_ = 0;
  std::string async_;
  std::string exchange_;
  int64_t exchangeRows_ = 0;
  std::set<std::string> usedNames_;
  int unnamed_ = 0;
};

// arith/math ops: C++ operators for scalars, device-library calls for tiles.
absl::Status BodyEmitter::emitArith(Operation& op, int indent) {
  bool tile = isa<RankedTensorType>(op.getResult(0).getType());
  auto binary = [&](std::string fn, const char* cppOperator) {
    if (tile || !cppOperator) return assign(op, indent, absl::StrCat("tj::", fn, "(", operandList(op), ")"));
    return assign(op, indent, absl::StrCat(use(op.getOperand(0)), " ", cppOperator, " ",
                                           use(op.getOperand(1))));
  };
  auto unary = [&](const char* fn) {
    return assign(op, indent, absl::StrCat("tj::", fn, "(", use(op.getOperand(0)), ")"));
  };
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto dense = dyn_cast<SplatElementsAttr>(constant.getValue())) {
      TJ_ASSIGN_OR_RETURN(std::string value, literal(dense.getSplatValue<Attribute>()));
      TJ_ASSIGN_OR_RETURN(std::string expr, splat(dense.getType(), value));
      return assign(op, indent, expr);
    }
    TJ_ASSIGN_OR_RETURN(std::string value, literal(constant.getValue()));
    return assign(op, indent, value);
  }
  if (isa<arith::AddFOp, arith::AddIOp>(op)) return binary("add", "+");
  if (isa<arith::SubFOp, arith::SubIOp>(op)) return binary("sub", "-");
  if (isa<arith::MulFOp, arith::MulIOp>(op)) return binary("mul", "*");
  if (isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp>(op)) return binary("div", "/");
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) return binary("rem", "%");
  if (isa<arith::RemFOp>(op)) return binary("rem", nullptr);
  if (isa<arith::CeilDivSIOp>(op)) return binary("ceildiv", nullptr);
  if (isa<arith::FloorDivSIOp>(op)) return binary("floordiv", nullptr);
  if (isa<arith::MaximumFOp>(op)) return binary("maximumf", nullptr);
  if (isa<arith::MinimumFOp>(op)) return binary("minimumf", nullptr);
  if (isa<arith::MaxNumFOp>(op)) return binary("maxnumf", nullptr);
  if (isa<arith::MinNumFOp>(op)) return binary("minnumf", nullptr);
  if (isa<arith::MaxSIOp>(op)) return binary("maxsi", nullptr);
  if (isa<arith::MinSIOp>(op)) return binary("minsi", nullptr);
  if (isa<arith::AndIOp>(op)) return binary("logical_and", "&");
  if (isa<arith::OrIOp>(op)) return binary("logical_or", "|");
  if (isa<arith::XOrIOp>(op)) return binary("logical_xor", "^");
  if (isa<arith::NegFOp>(op)) return unary("neg");
  if (isa<math::ExpOp>(op)) return unary("exp");
  if (isa<math::Exp2Op>(op)) return unary("exp2");
  if (isa<math::LogOp>(op)) return unary("log");
  if (isa<math::Log2Op>(op)) return unary("log2");
  if (isa<math::SqrtOp>(op)) return unary("sqrt");
  if (isa<math::RsqrtOp>(op)) return unary("rsqrt");
  if (isa<math::TanhOp>(op)) return unary("tanh");
  if (isa<math::AbsFOp>(op)) return unary("abs");
  if (isa<arith::ExtFOp>(op) && shared_.contains(op.getOperand(0)))
    return assign(op, indent, use(op.getOperand(0)));  // the same placed codes
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
          arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
    Type result = op.getResult(0).getType();
    Type element = tile ? cast<RankedTensorType>(result).getElementType() : result;
    TJ_ASSIGN_OR_RETURN(std::string cpp, cppType(element));
    return assign(op, indent, absl::StrCat("tj::cast<", cpp, ">(", use(op.getOperand(0)), ")"));
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    if (!tile)
      return assign(op, indent, absl::StrCat(use(select.getCondition()), " ? ",
                                             use(select.getTrueValue()), " : ",
                                             use(select.getFalseValue())));
    return assign(op, indent, absl::StrCat("tj::select(", operandList(op), ")"));
  }
  auto compare = [&](std::string fn, const char* cppOperator, bool unordered = false) {
    if (unordered)  // true if either is NaN, or the ordered predicate holds
      return assign(op, indent, absl::StrCat("tj::logical_or(tj::cmp_uno(", operandList(op),
                                             "), tj::", fn, "(", operandList(op), "))"));
    if (tile) return assign(op, indent, absl::StrCat("tj::", fn, "(", operandList(op), ")"));
    return assign(op, indent, absl::StrCat(use(op.getOperand(0)), " ", cppOperator, " ",
                                           use(op.getOperand(1))));
  };
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    bool half = isa<FloatType>(mlir::getElementTypeOrSelf(cmp.getLhs().getType())) &&
                mlir::getElementTypeOrSelf(cmp.getLhs().getType()).getIntOrFloatBitWidth() == 16;
    if (half && !tile) tile = true;  // 16-bit scalars compare through the library
    switch (cmp.getPredicate()) {
      case P::OEQ: return compare("cmp_eq", "==");
      case P::ONE: return assign(op, indent, absl::StrCat("tj::logical_and(tj::cmp_ne(", operandList(op), "), tj::logical_xor(tj::cmp_uno(", operandList(op), "), true))"));
      case P::OLT: return compare("cmp_lt", "<");
      case P::OLE: return compare("cmp_le", "<=");
      case P::OGT: return compare("cmp_gt", ">");
      case P::OGE: return compare("cmp_ge", ">=");
      case P::UNE: return compare("cmp_ne", "!=");
      case P::UEQ: return compare("cmp_eq", "==", true);
      case P::ULT: return compare("cmp_lt", "<", true);
      case P::ULE: return compare("cmp_le", "<=", true);
      case P::UGT: return compare("cmp_gt", ">", true);
      case P::UGE: return compare("cmp_ge", ">=", true);
      case P::UNO: return assign(op, indent, absl::StrCat("tj::cmp_uno(", operandList(op), ")"));
      default: return unsupported(&op, "comparison predicate");
    }
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
      case P::eq: return compare("cmp_eq", "==");
      case P::ne: return compare("cmp_ne", "!=");
      case P::slt: return compare("cmp_lt", "<");
      case P::sle: return compare("cmp_le", "<=");
      case P::sgt: return compare("cmp_gt", ">");
      case P::sge: return compare("cmp_ge", ">=");
      default: return unsupported(&op, "unsigned comparisons are not supported");
    }
  }
  return unsupported(&op);
}

absl::Status BodyEmitter::emitFor(scf::ForOp loop, int indent) {
  std::vector<std::string> carried;
  for (auto [init, arg] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs())) {
    TJ_ASSIGN_OR_RETURN(std::string type, valueType(arg));
    std::string name = define(arg, "carried");
    line(indent, absl::StrCat(type, " ", name, " = ", use(init), ";"));
    carried.push_back(name);
  }
  TJ_ASSIGN_OR_RETURN(std::string ivType, cppType(loop.getInductionVar().getType()));
  std::string iv = define(loop.getInductionVar(), "i");
  line(indent, absl::StrCat("for (", ivType, " ", iv, " = ", use(loop.getLowerBound()), "; ", iv,
                            " < ", use(loop.getUpperBound()), "; ", iv, " += ",
                            use(loop.getStep()), ") {"));
  Block& body = *loop.getBody();
  for (Operation& op : body.without_terminator()) TJ_RETURN_IF_ERROR(emitOp(op, indent + 1));
  auto yield = cast<scf::YieldOp>(body.getTerminator());
  // Read every yielded value before overwriting any carried one.
  std::vector<std::string> next;
  for (auto [value, arg] : llvm::zip(yield.getOperands(), loop.getRegionIterArgs())) {
    TJ_ASSIGN_OR_RETURN(std::string type, valueType(arg));
    std::string name = uniqueName("next");
    line(indent + 1, absl::StrCat("const ", type, " ", name, " = ", use(value), ";"));
    next.push_back(name);
  }
  for (size_t i = 0; i < next.size(); ++i) line(indent + 1, absl::StrCat(carried[i], " = ", next[i], ";"));
  line(indent, "}");
  for (auto [result, name] : llvm::zip(loop.getResults(), carried)) names_[result] = name;
  return absl::OkStatus();
}

absl::Status BodyEmitter::emitIf(scf::IfOp branch, int indent) {
  std::vector<std::string> results;
  for (Value result : branch.getResults()) {
    TJ_ASSIGN_OR_RETURN(std::string type, cppType(result.getType()));
    std::string name = define(result);
    // Left default-initialized: both branches assign it (scf.if yields on both). `{}` zeroed
    // whole register tiles that NVVM then had to prove dead: 1.8 % of a decode kernel's
    // compile in instructions executed, for the same PTX.
    line(indent, absl::StrCat(type, " ", name, ";"));
    results.push_back(name);
  }
  auto emitBranch = [&](Region& region) -> absl::Status {
    Block& block = region.front();
    for (Operation& op : block.without_terminator()) TJ_RETURN_IF_ERROR(emitOp(op, indent + 1));
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    for (auto [value, name] : llvm::zip(yield.getOperands(), results))
      line(indent + 1, absl::StrCat(name, " = ", use(value), ";"));
    return absl::OkStatus();
  };
  line(indent, absl::StrCat("if (", use(branch.getCondition()), ") {"));
  TJ_RETURN_IF_ERROR(emitBranch(branch.getThenRegion()));
  if (!branch.getElseRegion().empty()) {
    line(indent, "} else {");
    TJ_RETURN_IF_ERROR(emitBranch(branch.getElseRegion()));
  }
  line(indent, "}");
  return absl::OkStatus();
}

absl::Status BodyEmitter::emitOp(Operation& op, int indent) {
  if (isa<arith::ArithDialect, math::MathDialect>(op.getDialect())) return emitArith(op, indent);
  if (auto loop = dyn_cast<scf::ForOp>(op)) return emitFor(loop, indent);
  if (auto branch = dyn_cast<scf::IfOp>(op)) return emitIf(branch, indent);
  if (isa<tj::WaitPreviousKernelOp>(op)) {
    line(indent, "tj::wait_previous_kernel();");
    return absl::OkStatus();
  }
  if (isa<tj::StartNextKernelOp>(op)) {
    line(indent, "tj::start_next_kernel();");
    return absl::OkStatus();
  }
  if (auto pid = dyn_cast<tj::ProgramIdOp>(op))
    return assign(op, indent, absl::StrCat("tj::program_id<", pid.getAxis(), ">()"));
  if (auto count = dyn_cast<tj::NumProgramsOp>(op))
    return assign(op, indent, absl::StrCat("tj::num_programs<", count.getAxis(), ">()"));
  if (auto symbol = dyn_cast<tj::ShapeSymbolOp>(op)) {
    TJ_ASSIGN_OR_RETURN(std::string expr, shapeSymbolExpr(symbol.getSymbol()));
    return assign(op, indent, expr);
  }
  if (auto range = dyn_cast<tj::RangeOp>(op)) {
    auto tile = cast<RankedTensorType>(range.getType());
    if (tile.getRank() == 1 && tj::getTileLayout(tile) == tj::TileLayout::kBlocked) {
      TJ_ASSIGN_OR_RETURN(std::string element, cppType(range.getStart().getType()));
      return assign(op, indent, absl::StrCat("tj::range<", element, ", ", shapeList(tile), ">(",
                                             use(range.getStart()), ")"));
    }
    TJ_ASSIGN_OR_RETURN(std::string type, cppType(tile));
    return assign(op, indent, absl::StrCat("tj::range_along<", range.getAxis(), ", ", type, ">(",
                                           use(range.getStart()), ")"));
  }
  if (auto full = dyn_cast<tj::FullOp>(op)) {
    TJ_ASSIGN_OR_RETURN(std::string expr, splat(full.getType(), use(full.getValue())));
    return assign(op, indent, expr);
  }
  if (auto broadcast = dyn_cast<tj::BroadcastOp>(op))
    return assign(op, indent, absl::StrCat("tj::broadcast<", shapeList(broadcast.getType()), ">(",
                                           use(broadcast.getSource()), ")"));
  if (auto reshape = dyn_cast<tj::ReshapeOp>(op))
    return assign(op, indent, absl::StrCat("tj::reshape<", shapeList(reshape.getType()), ">(",
                                           use(reshape.getSource()), ")"));
  if (auto expand = dyn_cast<tj::ExpandDimsOp>(op))
    return assign(op, indent, absl::StrCat("tj::expand_dims<", expand.getAxis(), ">(",
                                           use(expand.getSource()), ")"));
  if (auto convert = dyn_cast<tj::ConvertLayoutOp>(op)) {
    TJ_ASSIGN_OR_RETURN(std::string type, cppType(convert.getType()));
    return assign(op, indent, absl::StrCat("tj::convert_layout<", type, ">(", use(convert.getSource()), ")"));
  }
  if (auto reduce = dyn_cast<tj::ReduceOp>(op)) {
    bool rows = tj::getTileLayout(reduce.getSource().getType()) == tj::TileLayout::kMma;
    return assign(op, indent, absl::StrCat("tj::reduce_", tj::stringifyReduceKind(reduce.getKind()).str(),
                                           "<", reduce.getAxis(), ">(", use(reduce.getSource()),
                                           rows ? ", " + exchange_ : "", ")"));
  }
  if (auto dot = dyn_cast<tj::DotOp>(op)) {
    std::string async;
    if (readsShared(op)) {
      // Where the copies committed since the operands' are known, the wait is a constant.
      std::optional<int64_t> newer = copyGroupsCommittedSinceOperands(dot, shared_);
      async = newer ? absl::StrCat(", ", async_, ".newerAtLeast(", *newer, ")") : ", " + async_;
    }
    // A b operand placed transposed is read the other way.
    const bool transB = dot.getTransB() != transposed_.contains(dot.getB());
    return assign(op, indent, absl::StrCat("tj::dot<", transB ? "true" : "false", ">(",
                                           operandList(op), async, ")"));
  }
  if (auto load = dyn_cast<tj::LoadOp>(op)) {
    auto view = load.getView().getType();
    TJ_ASSIGN_OR_RETURN(std::string element, cppType(view.getElementType()));
    std::string other = load.getOther() ? use(load.getOther())
                                        : absl::StrCat("tj::cast<", element, ">(0)");
    if (load.getSharedBuffer())
      return assign(op, indent, absl::StrCat("tj::load_shared<", shapeList(load.getType()), ", ",
                                             placement(op), loadsWholeRows(load) ? ", true" : "",
                                             ">(", async_, ", ", use(load.getView()), ", ",
                                             indexList(load.getOffsets()), ", ",
                                             limitList(load.getView(), load.getLimits(), view.getRank()),
                                             ", ", other, ")"));
    return assign(op, indent, absl::StrCat("tj::load<", shapeList(load.getType()), ">(",
                                           use(load.getView()), ", ", indexList(load.getOffsets()),
                                           ", ", limitList(load.getView(), load.getLimits(), view.getRank()),
                                           ", ", other, ")"));
  }
  if (auto store = dyn_cast<tj::StoreOp>(op)) {
    line(indent, absl::StrCat("tj::store(", use(store.getView()), ", ", indexList(store.getOffsets()),
                              ", ", limitList(store.getView(), store.getLimits(),
                                              store.getView().getType().getRank()),
                              ", ", use(store.getValue()), ");"));
    return absl::OkStatus();
  }
  if (auto merge = dyn_cast<tj::ClusterMergeStoreOp>(op)) {
    // emitKernel checked that the kernel runs in clusters (TJ_CLUSTER_PROGRAMS) on this target;
    // libraryScratchBytes left the partial out of the scratch where it stages in the placed
    // buffers.
    const char* stage = backend_.clusterMergeStagesInPlacedBuffers(merge) ? "true" : "false";
    line(indent, absl::StrCat("tj::cluster_merge_store<TJ_CLUSTER_PROGRAMS, ", stage, ">(",
                              use(merge.getView()),
                              ", ", indexList(merge.getOffsets()), ", ",
                              limitList(merge.getView(), merge.getLimits(),
                                        merge.getView().getType().getRank()),
                              ", ", use(merge.getPartial()), ", ", use(merge.getLse()), ", ",
                              use(merge.getCount()), ");"));
    return absl::OkStatus();
  }
  if (auto load = dyn_cast<tj::LoadScalarOp>(op))
    return assign(op, indent, absl::StrCat("tj::load_scalar(", use(load.getView()), ", ",
                                           indexList(load.getIndices()), ")"));
  if (auto store = dyn_cast<tj::StoreScalarOp>(op)) {
    line(indent, absl::StrCat("tj::store_scalar(", use(store.getView()), ", ",
                              indexList(store.getIndices()), ", ", use(store.getValue()), ");"));
    return absl::OkStatus();
  }
  if (auto prefetch = dyn_cast<tj::PrefetchOp>(op)) {
    line(indent, absl::StrCat("tj::prefetch(", use(prefetch.getView()), ", ",
                              indexList(prefetch.getIndices()), ", ",
                              use(prefetch.getCount()), ");"));
    return absl::OkStatus();
  }
  if (auto arrive = dyn_cast<tj::ArriveOp>(op))
    return assign(op, indent, absl::StrCat("tj::arrive(", use(arrive.getView()), ", ",
                                           indexList(arrive.getIndices()), ", ", use(arrive.getCount()),
                                           ")"));
  if (auto load = dyn_cast<tj::PagedLoadOp>(op); load && load.getSharedTransposed()) {
    // Shuffled V, copied into a [head_size, tokens] tile: its pieces are tokens of one dim
    // (their own lookups: one per group of tokens, not per row).
    const int64_t blockSize = fixedBlockSize(load);
    if (blockSize == 0) return unsupported(&op, "a transposed placement needs the block size fixed");
    return assign(op, indent, absl::StrCat("tj::paged_load_shared_transposed<", shapeList(load.getType()),
                                           ", ", placement(op), ", ", blockSize, ">(", async_,
                                           ", ", use(load.getCache()), ", ", use(load.getTable()), ", ",
                                           use(load.getSeq()), ", ", use(load.getStart()), ", ",
                                           use(load.getLimit()), ", ", use(load.getHead()), ")"));
  }
  if (auto load = dyn_cast<tj::PagedLoadOp>(op); load && load.getSharedBuffer()) {
    // The table lookups (tj::paged_rows), shared with an earlier placed load of the same
    // tokens in this block (the K and V tiles of one step), then the copies.
    std::string rows;
    if (tj::PagedLoadOp same = samePagedRows(load)) rows = pagedRows_.lookup(same.getOperation());
    if (rows.empty()) {
      // Where the block size is not fixed, the standard cache's extent 1 at run time (only in
      // that layout is axis 1 the block size; a shuffled cache always has it fixed).
      auto cacheType = load.getCache().getType();
      const int64_t blockSize = fixedBlockSize(load);
      if (blockSize == 0 && cacheType.isShuffled())
        return unsupported(&op, "a shuffled cache needs the block size fixed");
      std::string runtimeBlockSize =
          cacheType.isShuffled() ? std::to_string(blockSize) : use(load.getCache()) + ".shape[1]";
      TJ_ASSIGN_OR_RETURN(std::string element, cppType(load.getType().getElementType()));
      std::string shape = absl::StrCat(element, ", ", shapeList(load.getType()));
      std::string base = templateName(load.getResult());
      rows = uniqueName(absl::StrCat(base.empty() ? "paged" : base, "_rows"));
      line(indent, absl::StrCat("const tj::PagedRows<", shape, "> ", rows, " = tj::paged_rows<", shape,
                                ", ", blockSize, ">(", use(load.getTable()), ", ", use(load.getSeq()),
                                ", ", use(load.getStart()), ", ", use(load.getLimit()), ", ",
                                runtimeBlockSize, ");"));
    }
    pagedRows_[load.getOperation()] = rows;
    return assign(op, indent, absl::StrCat("tj::paged_load_shared_rows<", cacheLayout(load.getCache().getType()),
                                           ", ", shapeList(load.getType()), ", ", placement(op), ">(",
                                           async_, ", ", use(load.getCache()), ", ", rows, ", ",
                                           use(load.getHead()), ")"));
  }
  if (auto load = dyn_cast<tj::PagedLoadOp>(op))
    return assign(op, indent, absl::StrCat("tj::paged_load<", cacheLayout(load.getCache().getType()),
                                           ", ", shapeList(load.getType()), ">(", use(load.getCache()),
                                           ", ", use(load.getTable()), ", ", use(load.getSeq()), ", ",
                                           use(load.getStart()), ", ", use(load.getLimit()), ", ",
                                           use(load.getHead()), ")"));
  if (auto store = dyn_cast<tj::PagedStoreOp>(op)) {
    line(indent, absl::StrCat("tj::paged_store<", cacheLayout(store.getCache().getType()), ">(",
                              use(store.getCache()), ", ", use(store.getValue()), ", ",
                              use(store.getBlock()), ", ", use(store.getSlot()), ", ",
                              use(store.getHead()), ");"));
    return absl::OkStatus();
  }
  return unsupported(&op);
}

// Tiles in a matrix instruction's fragment layout need the backend's library to hold that
// instruction's fragments.
absl::Status checkFragmentTiles(tj::KernelOp kernel, const CompilerBackend& backend) {
  std::string missing;
  kernel.walk([&](Operation* op) {
    for (Type type : op->getResultTypes())
      if (tj::MatrixInstrAttr instr = tj::getMatrixInstr(type);
          instr && !backend.libraryHasFragmentTiles(instr.getName().str())) {
        missing = instr.getName().str();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (missing.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("the ", std::string(backend.name()),
                                               " device library has no fragment tiles of ",
                                               missing));
}

}  // namespace

absl::StatusOr<EmittedKernel> emitKernel(tj::TemplateOp specialized,
                                         const TargetDescription& target) {
  EmittedKernel emitted;
  TJ_ASSIGN_OR_RETURN(emitted.metadata, buildKernelMetadata(specialized, target));
  const KernelMetadata& metadata = emitted.metadata;
  tj::KernelOp kernel = specialized.getKernel();
  std::string& out = emitted.source;
  TJ_ASSIGN_OR_RETURN(const CompilerBackend* backend, lookupBackend(target.backend));
  emitted.sourceName = metadata.templateName + std::string(backend->sourceSuffix());

  out += absl::StrCat("// tilejit ", kEmitterVersion, ": template ", metadata.templateName,
                      ", target ", target.name, "\n");
  std::vector<std::string> parameters;
  for (const auto& [name, value] : metadata.parameters) parameters.push_back(name + "=" + value);
  out += absl::StrCat("// parameters: ", absl::StrJoin(parameters, " "), "\n");
  out += absl::StrCat("#define TJ_THREADS ", metadata.threadsPerProgram, "\n");
  TJ_RETURN_IF_ERROR(checkFragmentTiles(kernel, *backend));
  BodyEmitter body(kernel, *backend, out);
  body.findSharedTiles();
  // The backend's defines: its library's scratch and the reserved launch parameters.
  KernelPrelude prelude{kernel.getOperation(), &target, body.rowExchangeRows(),
                        body.dynamicSharedBytes()};
  TJ_ASSIGN_OR_RETURN(std::string defines, backend->emitPrelude(prelude, emitted.metadata));
  out += defines;
  out += "#include \"tj/device.h\"\n\n";

  std::string argsType = absl::StrCat("tj_args_", kernel.getSymName().str());
  out += absl::StrCat("struct ", argsType, " {\n");
  for (auto [arg, nameAttr] : llvm::zip(kernel.getBody().getArguments(), kernel.getArgNames())) {
    std::string name = cast<StringAttr>(nameAttr).getValue().str();
    Type type = arg.getType();
    if (isa<tj::ViewType, tj::KvCacheType>(type)) {
      TJ_ASSIGN_OR_RETURN(std::string cpp, BodyEmitter::cppType(type));
      out += absl::StrCat("  ", cpp, " ", name, ";\n");
    } else if (type.isF32() || type.isF64()) {
      TJ_ASSIGN_OR_RETURN(std::string cpp, BodyEmitter::cppType(type));
      out += absl::StrCat("  alignas(8) ", cpp, " ", name, ";\n");
    } else if (isa<IntegerType, IndexType>(type)) {
      out += absl::StrCat("  int64_t ", name, ";  // kernel ABI: integer scalars travel as int64\n");
    } else {
      return absl::InvalidArgumentError(absl::StrCat("argument '", name,
                                                     "' has a scalar type the ABI cannot pass"));
    }
  }
  out += "};\n\n";
  out += absl::StrCat("TJ_KERNEL_ENTRY(", metadata.entry, ", ", argsType, ") {\n");
  TJ_RETURN_IF_ERROR(body.emitKernelBody(kernel.getBody().front(), 1));
  out += "}\n";
  return emitted;
}

}  // namespace tilejit
