#include "compiler/emit/kernel_signature.h"

#include "absl/strings/str_cat.h"
#include "compiler/specialize/specializer.h"
#include "support/status.h"

namespace tilejit {

using namespace mlir;

absl::StatusOr<DType> dtypeOf(Type type) {
  if (type.isF16()) return DType::kF16;
  if (type.isBF16()) return DType::kBF16;
  if (type.isF32()) return DType::kF32;
  if (type.isF64()) return DType::kF64;
  if (isa<Float8E4M3FNType>(type)) return DType::kF8E4M3FN;
  if (isa<Float8E5M2Type>(type)) return DType::kF8E5M2;
  if (type.isInteger(1)) return DType::kBool;
  if (type.isInteger(8)) return DType::kI8;
  if (type.isInteger(32)) return DType::kI32;
  if (type.isInteger(64) || type.isIndex()) return DType::kI64;
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return absl::InvalidArgumentError(absl::StrCat("type ", text, " has no runtime dtype"));
}

namespace {

DimSpec dimOf(Attribute attr) {
  tj::Extent extent = tj::getExtent(attr);
  if (extent.isConstant()) return {"", extent.value};
  return {extent.name.str(), -1};
}

absl::StatusOr<int64_t> constantDim(Attribute attr, const char* what) {
  tj::Extent extent = tj::getExtent(attr);
  if (!extent.isConstant())
    return absl::InvalidArgumentError(absl::StrCat(
        "the shuffled cache layout needs ", what, " bound at specialization, not the shape symbol '",
        extent.name.str(), "'"));
  return extent.value;
}

// Serializes a folded grid value as the runtime's expression grammar.
absl::StatusOr<std::string> gridExpression(Value value) {
  IntegerAttr constant;
  if (matchPattern(value, m_Constant(&constant))) return std::to_string(constant.getInt());
  Operation* op = value.getDefiningOp();
  if (auto symbol = dyn_cast_or_null<tj::ShapeSymbolOp>(op)) return symbol.getSymbol().str();
  const char* fn = nullptr;
  if (isa_and_nonnull<arith::AddIOp>(op)) fn = "add";
  else if (isa_and_nonnull<arith::SubIOp>(op)) fn = "sub";
  else if (isa_and_nonnull<arith::MulIOp>(op)) fn = "mul";
  else if (isa_and_nonnull<arith::CeilDivSIOp>(op)) fn = "cdiv";
  else if (isa_and_nonnull<arith::FloorDivSIOp, arith::DivSIOp>(op)) fn = "div";
  else if (isa_and_nonnull<arith::RemSIOp>(op)) fn = "mod";
  else if (isa_and_nonnull<arith::MinSIOp>(op)) fn = "min";
  else if (isa_and_nonnull<arith::MaxSIOp>(op)) fn = "max";
  if (!fn || op->getNumOperands() != 2)
    return absl::InvalidArgumentError(absl::StrCat(
        "grid expression uses ", op ? op->getName().getStringRef().str() : "a block argument",
        "; the launch grid may use add, sub, mul, ceildivsi, divsi, floordivsi, remsi, minsi, "
        "maxsi over shape symbols and constants"));
  TJ_ASSIGN_OR_RETURN(std::string lhs, gridExpression(op->getOperand(0)));
  TJ_ASSIGN_OR_RETURN(std::string rhs, gridExpression(op->getOperand(1)));
  return absl::StrCat(fn, "(", lhs, ", ", rhs, ")");
}

}  // namespace

absl::StatusOr<std::vector<DimSpec>> physicalDims(Type type) {
  std::vector<DimSpec> dims;
  if (auto view = dyn_cast<tj::ViewType>(type)) {
    for (Attribute attr : view.getDims()) dims.push_back(dimOf(attr));
    return dims;
  }
  auto cache = cast<tj::KvCacheType>(type);
  ArrayAttr logical = cache.getDims();  // [blocks, block_size, kv_heads, head_size]
  if (!cache.isLayoutBound())
    return absl::InvalidArgumentError(absl::StrCat(
        "kv_cache layout '", cache.getLayout().getValue().str(),
        "' is not bound: expected \"standard\" or \"shuffled\""));
  if (!cache.isShuffled()) {
    for (Attribute attr : logical) dims.push_back(dimOf(attr));
    return dims;
  }
  TJ_ASSIGN_OR_RETURN(DType dtype, dtypeOf(cache.getElementType()));
  const int64_t x = 16 / dtypeSize(dtype);
  TJ_ASSIGN_OR_RETURN(int64_t blockSize, constantDim(logical[1], "block_size"));
  TJ_ASSIGN_OR_RETURN(int64_t headSize, constantDim(logical[3], "head_size"));
  if (cache.isKey())  // [blocks, kv_heads, head_size/X, block_size, X]
    return std::vector<DimSpec>{dimOf(logical[0]), dimOf(logical[2]), {"", headSize / x},
                                {"", blockSize}, {"", x}};
  // [blocks, kv_heads, block_size/X, head_size, X]
  return std::vector<DimSpec>{dimOf(logical[0]), dimOf(logical[2]), {"", blockSize / x},
                              {"", headSize}, {"", x}};
}

absl::StatusOr<KernelMetadata> buildKernelMetadata(tj::TemplateOp specialized,
                                                   const TargetDescription& target) {
  KernelMetadata metadata;
  tj::KernelOp kernel = specialized.getKernel();
  metadata.templateName = specialized.getSymName().str();
  metadata.entry = absl::StrCat("tj_", kernel.getSymName().str());
  metadata.target = target.name;
  metadata.backend = target.backend;
  if (auto parameters = specialized->getAttrOfType<DictionaryAttr>("tj.parameters"))
    for (NamedAttribute entry : parameters) {
      std::string text;
      if (auto integer = dyn_cast<IntegerAttr>(entry.getValue())) text = std::to_string(integer.getInt());
      else if (auto str = dyn_cast<StringAttr>(entry.getValue())) text = str.getValue().str();
      else if (auto typeAttr = dyn_cast<TypeAttr>(entry.getValue()))
        llvm::raw_string_ostream(text) << typeAttr.getValue();
      metadata.parameters.emplace_back(entry.getName().str(), text);
    }

  metadata.waitsForPreviousKernel =
      !kernel.getBody().getOps<tj::WaitPreviousKernelOp>().empty();
  // Arguments a kernel stores into.
  llvm::DenseSet<Value> written;
  kernel.walk([&](Operation* op) {
    if (auto store = dyn_cast<tj::StoreOp>(op)) written.insert(store.getView());
    if (auto store = dyn_cast<tj::StoreScalarOp>(op)) written.insert(store.getView());
    if (auto store = dyn_cast<tj::PagedStoreOp>(op)) written.insert(store.getCache());
  });
  for (auto [arg, nameAttr] : llvm::zip(kernel.getBody().getArguments(), kernel.getArgNames())) {
    ArgSpec spec;
    spec.name = cast<StringAttr>(nameAttr).getValue().str();
    Type type = arg.getType();
    if (isa<tj::ViewType, tj::KvCacheType>(type)) {
      spec.kind = ArgSpec::Kind::kView;
      Type element = isa<tj::ViewType>(type) ? cast<tj::ViewType>(type).getElementType()
                                             : cast<tj::KvCacheType>(type).getElementType();
      TJ_ASSIGN_OR_RETURN(spec.dtype, dtypeOf(element));
      TJ_ASSIGN_OR_RETURN(spec.dims, physicalDims(type));
      // Shuffled caches are addressed as dense blocks of X-element vectors.
      spec.contiguous = isa<tj::KvCacheType>(type) && cast<tj::KvCacheType>(type).isShuffled();
      spec.writable = written.contains(arg);
    } else {
      spec.kind = ArgSpec::Kind::kScalar;
      TJ_ASSIGN_OR_RETURN(spec.dtype, dtypeOf(type));
    }
    metadata.args.push_back(std::move(spec));
  }

  tj::LaunchOp launch = specialized.getLaunch();
  auto gridYield = cast<tj::YieldOp>(launch.getGrid().front().getTerminator());
  for (int axis = 0; axis < 3; ++axis) {
    TJ_ASSIGN_OR_RETURN(metadata.grid[axis], gridExpression(gridYield.getValues()[axis]));
  }
  std::vector<std::optional<int64_t>> threads = foldRegionToConstants(launch.getThreads());
  if (threads.size() != 1 || !threads[0])
    return absl::InvalidArgumentError("threads per program did not fold to a constant");
  if (*threads[0] < 1 || *threads[0] > target.maxThreadsPerProgram)
    return absl::InvalidArgumentError(absl::StrCat(
        "threads per program is ", *threads[0], "; target ", target.name, " allows 1..",
        target.maxThreadsPerProgram));
  metadata.threadsPerProgram = *threads[0];
  return metadata;
}

}  // namespace tilejit
