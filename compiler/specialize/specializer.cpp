#include "compiler/specialize/specializer.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes.h"
#include "support/status.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"

namespace tilejit {

using namespace mlir;

namespace {

// Collects MLIR diagnostics as "file:line:col: error: ..." text while alive.
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(MLIRContext& context)
      : context_(context),
        id_(context.getDiagEngine().registerHandler([this](Diagnostic& diagnostic) {
          llvm::raw_string_ostream os(text_);
          if (auto loc = dyn_cast<FileLineColLoc>(diagnostic.getLocation()))
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn()
               << ": ";
          else
            os << diagnostic.getLocation() << ": ";
          switch (diagnostic.getSeverity()) {
            case DiagnosticSeverity::Error: os << "error: "; break;
            case DiagnosticSeverity::Warning: os << "warning: "; break;
            default: os << "note: "; break;
          }
          os << diagnostic.str() << "\n";
          for (Diagnostic& note : diagnostic.getNotes()) os << "  note: " << note.str() << "\n";
          return success();
        })) {}
  ~DiagnosticCollector() { context_.getDiagEngine().eraseHandler(id_); }
  const std::string& text() const { return text_; }

 private:
  MLIRContext& context_;
  DiagnosticEngine::HandlerID id_;
  std::string text_;
};

std::string attrToText(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr)) return std::to_string(integer.getInt());
  if (auto str = dyn_cast<StringAttr>(attr)) return str.getValue().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto type = dyn_cast<TypeAttr>(attr)) os << type.getValue();
  else os << attr;
  return text;
}

// Parses a parameter value given as text according to the parameter's kind.
absl::StatusOr<Attribute> parseParamValue(tj::ParamOp param, const std::string& text) {
  MLIRContext* context = param.getContext();
  std::string name = param.getSymName().str();
  switch (param.getKind()) {
    case tj::ParamKind::Int: {
      int64_t value;
      if (!llvm::to_integer(text, value, 10))
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", name, "': '", text, "' is not an integer; legal values: ",
                         param.describeDomain()));
      return Attribute(IntegerAttr::get(IntegerType::get(context, 64), value));
    }
    case tj::ParamKind::Type: {
      Type type = mlir::parseType(text, context, nullptr, /*isKnownNullTerminated=*/false);
      if (!type)
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter '", name, "': '", text, "' is not a type; legal values: ",
            param.describeDomain()));
      return Attribute(TypeAttr::get(type));
    }
    case tj::ParamKind::String:
      return Attribute(StringAttr::get(context, text));
  }
  return absl::InternalError("unknown parameter kind");
}

// Tuning entries keyed "<template>.<parameter>[<other>=<value>]" replace the value of a
// parameter the caller did not give where `other` is bound to `value` (a measured value that
// holds for one variant of the template only, e.g. one KV layout).
absl::Status applyConditionalTuning(tj::TemplateOp templ, const TargetDescription& target,
                                    const std::map<std::string, std::string>& given,
                                    llvm::StringMap<Attribute>& bound) {
  std::string prefix = templ.getSymName().str() + ".";
  for (const auto& [key, tuned] : target.tuning) {
    size_t open = key.find('['), equals = key.find('=', open);
    if (!absl::StartsWith(key, prefix) || open == std::string::npos) continue;
    if (equals == std::string::npos || key.back() != ']')
      return absl::InternalError(absl::StrCat("target ", target.name, ": malformed tuning key '", key,
                                              "' (want <template>.<parameter>[<other>=<value>])"));
    std::string name = key.substr(prefix.size(), open - prefix.size());
    std::string other = key.substr(open + 1, equals - open - 1);
    std::string value = key.substr(equals + 1, key.size() - equals - 2);
    tj::ParamOp param = templ.lookupParam(name);
    if (!param || !bound.count(other))
      return absl::InternalError(absl::StrCat("target ", target.name, ": tuning key '", key,
                                              "' names a parameter template '", templ.getSymName().str(),
                                              "' does not have"));
    if (given.count(name) || attrToText(bound.lookup(other)) != value ||
        param.getKind() != tj::ParamKind::Int)
      continue;
    Attribute attr = IntegerAttr::get(IntegerType::get(param.getContext(), 64), tuned);
    if (!param.admits(attr))
      return absl::InternalError(absl::StrCat("target ", target.name, ": tuning '", key, "' = ", tuned,
                                              " is not allowed; legal values: ", param.describeDomain()));
    bound[name] = attr;
  }
  return absl::OkStatus();
}

// Chooses each parameter's value: given, else the target's tuning table, else the default.
absl::StatusOr<llvm::StringMap<Attribute>> bindParameters(
    tj::TemplateOp templ, const TargetDescription& target,
    const std::map<std::string, std::string>& values) {
  std::string templateName = templ.getSymName().str();
  llvm::StringMap<Attribute> bound;
  std::vector<std::string> names;
  for (tj::ParamOp param : templ.getParams()) names.push_back(param.getSymName().str());
  for (const auto& [name, text] : values)
    if (!templ.lookupParam(name))
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown parameter '", name, "' for template '", templateName,
          "'; its parameters are: ", absl::StrJoin(names, ", ")));

  for (tj::ParamOp param : templ.getParams()) {
    std::string name = param.getSymName().str();
    Attribute value;
    if (auto given = values.find(name); given != values.end()) {
      TJ_ASSIGN_OR_RETURN(value, parseParamValue(param, given->second));
    } else if (auto tuned = target.tuned(templateName + "." + name);
               tuned && param.getKind() == tj::ParamKind::Int) {
      value = IntegerAttr::get(IntegerType::get(param.getContext(), 64), *tuned);
    } else if (Attribute fallback = param.getDefaultValueAttr()) {
      value = fallback;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "' of template '", templateName,
          "' has no value: give one with -p ", name, "=<value> (legal values: ",
          param.describeDomain(), "); target ", target.name, " has no tuned value for it"));
    }
    if (!param.admits(value))
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "': value ", attrToText(value), " is not allowed for template '",
          templateName, "'; legal values: ", param.describeDomain()));
    bound[name] = value;
  }
  TJ_RETURN_IF_ERROR(applyConditionalTuning(templ, target, values, bound));
  return bound;
}

absl::StatusOr<int64_t> targetValue(const TargetDescription& target, StringRef name) {
  if (name == "warp_size") return target.warpSize;
  if (name == "multiprocessor_count") return target.multiprocessorCount;
  if (name == "shared_bytes") return target.sharedBytesPerProgram;
  if (name == "max_threads") return target.maxThreadsPerProgram;
  return absl::InvalidArgumentError(absl::StrCat("unknown target property '", name.str(), "'"));
}

Attribute bindExtent(Attribute extent, const llvm::StringMap<Attribute>& bound) {
  if (auto name = dyn_cast<StringAttr>(extent)) {
    auto it = bound.find(name.getValue());
    if (it != bound.end()) return it->second;
  }
  return extent;
}

ArrayAttr bindExtents(ArrayAttr extents, const llvm::StringMap<Attribute>& bound) {
  SmallVector<Attribute> out;
  for (Attribute extent : extents) out.push_back(bindExtent(extent, bound));
  return ArrayAttr::get(extents.getContext(), out);
}

// Replaces tj.param_value / tj.param_equals / tj.target_value by constants and binds the
// parameters in types (dtype placeholders, view extents, cache layouts) and tile shapes.
absl::Status substituteParameters(tj::TemplateOp templ, const TargetDescription& target,
                                  const llvm::StringMap<Attribute>& bound) {
  absl::Status status;
  templ.walk([&](Operation* op) {
    OpBuilder builder(op);
    if (auto param = dyn_cast<tj::ParamValueOp>(op)) {
      int64_t value = cast<IntegerAttr>(bound.lookup(param.getParam())).getInt();
      Type type = param.getType();
      Value constant = type.isIndex()
                           ? arith::ConstantIndexOp::create(builder, op->getLoc(), value).getResult()
                           : arith::ConstantIntOp::create(builder, op->getLoc(), type, value).getResult();
      param.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto equals = dyn_cast<tj::ParamEqualsOp>(op)) {
      bool same = bound.lookup(equals.getParam()) == equals.getValue();
      Value constant = arith::ConstantIntOp::create(builder, op->getLoc(), builder.getI1Type(), same);
      equals.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto property = dyn_cast<tj::TargetValueOp>(op)) {
      absl::StatusOr<int64_t> value = targetValue(target, property.getName());
      if (!value.ok()) {
        status = value.status();
        return WalkResult::interrupt();
      }
      Type type = property.getType();
      Value constant = type.isIndex()
                           ? arith::ConstantIndexOp::create(builder, op->getLoc(), *value).getResult()
                           : arith::ConstantIntOp::create(builder, op->getLoc(), type, *value).getResult();
      property.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto tile = op->getAttrOfType<ArrayAttr>("tile")) {
      op->setAttr("tile", bindExtents(tile, bound));
    } else if (Attribute depth = op->getAttr("tj.prefetch_depth")) {
      op->setAttr("tj.prefetch_depth", bindExtent(depth, bound));
    }
    return WalkResult::advance();
  });
  TJ_RETURN_IF_ERROR(status);

  AttrTypeReplacer replacer;
  replacer.addReplacement([&](tj::DTypeParamType type) -> std::optional<Type> {
    Attribute value = bound.lookup(type.getParam());
    if (auto typeAttr = dyn_cast_or_null<TypeAttr>(value)) return typeAttr.getValue();
    return std::nullopt;
  });
  replacer.addReplacement([&](tj::ViewType type) -> std::optional<Type> {
    return tj::ViewType::get(type.getContext(), bindExtents(type.getDims(), bound),
                             type.getElementType());
  });
  replacer.addReplacement([&](tj::KvCacheType type) -> std::optional<Type> {
    auto layout = dyn_cast_or_null<StringAttr>(bindExtent(type.getLayout(), bound));
    return tj::KvCacheType::get(type.getContext(), type.getRole(),
                                bindExtents(type.getDims(), bound), type.getElementType(),
                                layout ? layout : type.getLayout(), type.getScale());
  });
  replacer.recursivelyReplaceElementsIn(templ, /*replaceAttrs=*/true, /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return absl::OkStatus();
}

// Names of the parameters a constraint reads, for its error message.
std::vector<std::string> parametersReadBy(tj::ConstraintOp constraint) {
  std::vector<std::string> names;
  constraint.walk([&](Operation* op) {
    if (auto value = dyn_cast<tj::ParamValueOp>(op)) names.push_back(value.getParam().str());
    if (auto equals = dyn_cast<tj::ParamEqualsOp>(op)) names.push_back(equals.getParam().str());
  });
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

absl::Status checkConstraints(tj::TemplateOp templ,
                              std::vector<std::pair<tj::ConstraintOp,
                                                    std::vector<std::string>>>& reads,
                              const llvm::StringMap<Attribute>& bound) {
  for (auto& [constraint, names] : reads) {
    std::vector<std::optional<int64_t>> folded = foldRegionToConstants(constraint.getBody());
    if (folded.size() != 1 || !folded[0])
      return absl::InternalError(absl::StrCat("constraint '", constraint.getMessage().str(),
                                              "' did not fold to a constant"));
    if (*folded[0] != 0) continue;
    std::vector<std::string> given;
    for (const std::string& name : names)
      given.push_back(absl::StrCat(name, "=", attrToText(bound.lookup(name))));
    return absl::InvalidArgumentError(absl::StrCat(
        "template '", templ.getSymName().str(), "' rejects this specialization: ",
        constraint.getMessage().str(), " (", absl::StrJoin(given, ", "), ")"));
  }
  return absl::OkStatus();
}

// Tile layouts are the compiler's (tj-assign-mma-layouts on CUDA targets): a template that
// writes one would bypass the pass and fail on backends without that layout.
absl::Status checkNoAuthoredLayouts(tj::TemplateOp templ) {
  std::string problem;
  auto layoutOf = [](Type type) { return tj::getTileLayout(type); };
  templ.walk([&](Operation* op) {
    llvm::raw_string_ostream os(problem);
    Location where = op->getLoc();
    if (auto named = dyn_cast<NameLoc>(where)) where = named.getChildLoc();
    if (auto convert = dyn_cast<tj::ConvertLayoutOp>(op); convert && convert.getLayout() != "blocked") {
      os << "tj.convert_layout to \"" << convert.getLayout() << "\" at " << where;
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      if (layoutOf(result.getType()) != tj::TileLayout::kBlocked) {
        os << op->getName() << " at " << where << " has tile type " << result.getType();
        return WalkResult::interrupt();
      }
    for (Region& region : op->getRegions())
      for (Block& block : region)
        for (BlockArgument arg : block.getArguments())
          if (layoutOf(arg.getType()) != tj::TileLayout::kBlocked) {
            os << "a block argument of " << op->getName() << " at " << where << " has tile type "
               << arg.getType();
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  if (!problem.empty())
    return absl::InvalidArgumentError(absl::StrCat(
        "template '", templ.getSymName().str(), "' sets a tile layout (", problem,
        "); layouts are assigned by the compiler on the targets that have them: write tiles "
        "without encodings"));
  return absl::OkStatus();
}

absl::Status checkStaticShapes(tj::TemplateOp templ) {
  std::string problem;
  templ.walk([&](Operation* op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type); tensor && !tensor.hasStaticShape()) {
        llvm::raw_string_ostream os(problem);
        os << op->getName() << " at " << op->getLoc() << " still has tile type " << tensor;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (!problem.empty())
    return absl::InternalError(absl::StrCat("tile shapes not refined: ", problem));
  return absl::OkStatus();
}

// Wraps the location of every value the template names (%p_lse, loop variables) in a
// NameLoc, so the emitted C++ can use the author's names.
void keepSourceNames(const AsmParserState& state) {
  auto nameOf = [](llvm::SMRange range) {
    return llvm::StringRef(range.Start.getPointer(),
                           range.End.getPointer() - range.Start.getPointer())
        .ltrim('%');
  };
  for (const AsmParserState::OperationDefinition& def : state.getOpDefs()) {
    if (def.resultGroups.empty()) continue;
    StringRef name = nameOf(def.resultGroups.front().definition.loc);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    def.op->setLoc(NameLoc::get(StringAttr::get(def.op->getContext(), name), def.op->getLoc()));
  }
  for (const AsmParserState::BlockDefinition& def : state.getBlockDefs())
    for (auto [arg, argDef] : llvm::zip(def.block->getArguments(), def.arguments)) {
      StringRef name = nameOf(argDef.loc);
      if (!name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])))
        arg.setLoc(NameLoc::get(StringAttr::get(arg.getContext(), name), arg.getLoc()));
    }
}

}  // namespace

std::vector<std::optional<int64_t>> foldRegionToConstants(Region& region) {
  RewritePatternSet patterns(region.getContext());
  (void)applyPatternsGreedily(region, std::move(patterns));
  std::vector<std::optional<int64_t>> values;
  Operation* terminator = region.front().getTerminator();
  for (Value value : terminator->getOperands()) {
    IntegerAttr constant;
    if (matchPattern(value, m_Constant(&constant))) values.push_back(constant.getInt());
    else values.push_back(std::nullopt);
  }
  return values;
}

absl::StatusOr<OwningOpRef<ModuleOp>> parseTemplate(MLIRContext& context, std::string_view text,
                                                    std::string_view sourceName) {
  DialectRegistry registry;
  tj::registerTilejitDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);  // the file:line:col says where; the op dump is noise
  DiagnosticCollector diagnostics(context);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                           llvm::StringRef(sourceName.data(), sourceName.size())),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module(ModuleOp::create(
      FileLineColLoc::get(&context, llvm::StringRef(sourceName.data(), sourceName.size()), 1, 1)));
  AsmParserState state;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (failed(parseAsmSourceFile(sourceMgr, module->getBody(), config, &state)) ||
      failed(verify(*module)))
    return absl::InvalidArgumentError(
        absl::StrCat("malformed template ", std::string(sourceName), ":\n", diagnostics.text()));
  keepSourceNames(state);
  TJ_RETURN_IF_ERROR(findTemplate(*module).status());
  return module;
}

absl::StatusOr<tj::TemplateOp> findTemplate(ModuleOp module) {
  auto templates = llvm::to_vector(module.getOps<tj::TemplateOp>());
  if (templates.size() != 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "a template file must hold exactly one tj.template, found ", templates.size()));
  return templates.front();
}

absl::StatusOr<SpecializedKernel> specializeTemplate(
    ModuleOp parsed, const TargetDescription& target,
    const std::map<std::string, std::string>& values) {
  MLIRContext& context = *parsed.getContext();
  DiagnosticCollector diagnostics(context);
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(parsed->clone()));
  TJ_ASSIGN_OR_RETURN(tj::TemplateOp templ, findTemplate(*module));
  TJ_ASSIGN_OR_RETURN(llvm::StringMap<Attribute> bound, bindParameters(templ, target, values));

  SpecializedKernel result;
  NamedAttrList boundAttrs;
  for (tj::ParamOp param : templ.getParams()) {
    Attribute value = bound.lookup(param.getSymName());
    result.parameters.emplace_back(param.getSymName().str(), attrToText(value));
    boundAttrs.append(param.getSymName(), value);
  }
  std::vector<std::pair<tj::ConstraintOp, std::vector<std::string>>> constraints;
  for (auto constraint : templ.getBody().getOps<tj::ConstraintOp>())
    constraints.emplace_back(constraint, parametersReadBy(constraint));

  TJ_RETURN_IF_ERROR(substituteParameters(templ, target, bound));
  TJ_RETURN_IF_ERROR(checkConstraints(templ, constraints, bound));

  // The parameters now live as constants; keep their values for display and cache keys.
  for (auto& [constraint, names] : constraints) constraint->erase();
  for (tj::ParamOp param : templ.getParams()) param->erase();
  templ->setAttr("tj.parameters", boundAttrs.getDictionary(&context));
  templ->setAttr("tj.target", StringAttr::get(&context, target.name));

  TJ_RETURN_IF_ERROR(checkNoAuthoredLayouts(templ));
  PassManager pm(&context);
  pm.addPass(createRefineTileShapesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // After the clean-up (steps and offsets compare as constants); the index arithmetic it
  // adds is left for the C++ compiler to fold.
  pm.addPass(createDeepenLoopPrefetchPass());
  // Async copies into shared memory need cp.async (sm_80+, every CUDA target we have). Placed
  // tiles live in dynamic shared memory, so a program may use all the target allows.
  // Tensor-core accumulators keep the mma.sync fragment layout (the CUDA library's).
  // Layouts first: the placement's budget counts the library scratch, which mma tiles need
  // no room in.
  if (target.backend == "cuda") {
    pm.addPass(createAssignMmaLayoutsPass());
    pm.addPass(createPlaceDotOperandsInSharedMemoryPass(target.sharedBytesPerProgram));
    // The layout pass gives each use of a shared constant tile its own copy; equal copies
    // merge again (each is a splat the C++ compiler instantiates, inlines and cleans up).
    pm.addPass(createCSEPass());
  }
  if (failed(pm.run(*module)))
    return absl::InvalidArgumentError(
        absl::StrCat("specialization of '", templ.getSymName().str(), "' failed:\n",
                     diagnostics.text()));

  // Loops the template marks with `tj.unroll` are unrolled once their bounds are constants.
  SmallVector<scf::ForOp> unroll;
  templ.walk([&](scf::ForOp loop) {
    if (loop->hasAttr("tj.unroll")) unroll.push_back(loop);
  });
  for (scf::ForOp loop : unroll)
    if (failed(loopUnrollFull(loop)))
      return absl::InvalidArgumentError(absl::StrCat(
          "a loop marked tj.unroll in '", templ.getSymName().str(),
          "' does not have constant bounds after specialization:\n", diagnostics.text()));

  TJ_RETURN_IF_ERROR(checkStaticShapes(templ));
  if (failed(verify(*module)))
    return absl::InternalError(absl::StrCat("specialized module does not verify:\n",
                                            diagnostics.text()));
  result.templateOp = templ;
  result.module = std::move(module);
  return result;
}

}  // namespace tilejit
