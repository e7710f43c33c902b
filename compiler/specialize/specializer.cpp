#include "compiler/specialize/specializer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/registry.h"
#include "compiler/passes.h"
#include "compiler/specialize/template_diagnostics.h"
#include "support/status.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
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
// "file:line:col: " of a location (through a NameLoc), or its printed form.
void printLocation(llvm::raw_ostream& os, Location location) {
  if (auto named = dyn_cast<NameLoc>(location)) location = named.getChildLoc();
  if (auto loc = dyn_cast<FileLineColLoc>(location)) {
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn() << ": ";
    return;
  }
  os << location << ": ";
}

// Collects the diagnostics of the passes that run on a parsed template: each with its
// location, notes included (a note without one would not say which op it means).
class DiagnosticCollector {
 public:
  explicit DiagnosticCollector(MLIRContext& context)
      : context_(context),
        id_(context.getDiagEngine().registerHandler([this](Diagnostic& diagnostic) {
          llvm::raw_string_ostream os(text_);
          printLocation(os, diagnostic.getLocation());
          switch (diagnostic.getSeverity()) {
            case DiagnosticSeverity::Error: os << "error: "; break;
            case DiagnosticSeverity::Warning: os << "warning: "; break;
            default: os << "note: "; break;
          }
          os << diagnostic.str() << "\n";
          for (Diagnostic& note : diagnostic.getNotes()) {
            os << "  ";
            printLocation(os, note.getLocation());
            os << "note: " << note.str() << "\n";
          }
          return success();
        })) {}
  ~DiagnosticCollector() { context_.getDiagEngine().eraseHandler(id_); }
  const std::string& text() const { return text_; }

 private:
  MLIRContext& context_;
  DiagnosticEngine::HandlerID id_;
  std::string text_;
};

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
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                           llvm::StringRef(sourceName.data(), sourceName.size())),
      llvm::SMLoc());
  // As mlir-opt prints them: location, message, the source line and a caret, notes likewise.
  std::string diagnosticsText;
  llvm::raw_string_ostream diagnosticsStream(diagnosticsText);
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, diagnosticsStream);
  UndeclaredValueNamer namer(context, sourceMgr);
  OwningOpRef<ModuleOp> module(ModuleOp::create(
      FileLineColLoc::get(&context, llvm::StringRef(sourceName.data(), sourceName.size()), 1, 1)));
  AsmParserState state;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (failed(parseAsmSourceFile(sourceMgr, module->getBody(), config, &state)))
    return absl::InvalidArgumentError(absl::StrCat("malformed template ", std::string(sourceName),
                                                   ":\n", describeUnclosedBrace(sourceMgr),
                                                   diagnosticsText));
  if (failed(verify(*module)))
    return absl::InvalidArgumentError(
        absl::StrCat("malformed template ", std::string(sourceName), ":\n", diagnosticsText));
  keepSourceNames(state);
  TJ_RETURN_IF_ERROR(findTemplate(*module).status());
  return module;
}

std::string declaredTemplateName(std::string_view text) {
  constexpr std::string_view kDeclaration = "tj.template @";
  for (size_t start = 0; start < text.size();) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
    if (line.substr(0, kDeclaration.size()) == kDeclaration) {
      line.remove_prefix(kDeclaration.size());
      size_t length = 0;
      while (length < line.size() && (std::isalnum(static_cast<unsigned char>(line[length])) ||
                                      line[length] == '_' || line[length] == '.' || line[length] == '$'))
        ++length;
      return std::string(line.substr(0, length));
    }
    start = end + 1;
  }
  return "";
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
    const std::map<std::string, ParameterValue>& values) {
  MLIRContext& context = *parsed.getContext();
  DiagnosticCollector diagnostics(context);
  OwningOpRef<ModuleOp> module(cast<ModuleOp>(parsed->clone()));
  TJ_ASSIGN_OR_RETURN(tj::TemplateOp templ, findTemplate(*module));
  SpecializedKernel result;
  TJ_ASSIGN_OR_RETURN(result.parameters, bindTemplateParameters(templ, target, values));
  TJ_RETURN_IF_ERROR(checkTemplateConstraints(templ));

  TJ_RETURN_IF_ERROR(checkNoAuthoredLayouts(templ));
  PassManager pm(&context);
  pm.addPass(createRefineTileShapesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldExactFloatRoundTripsPass());
  pm.addPass(createCSEPass());
  // After the clean-up (steps and offsets compare as constants); the index arithmetic it
  // adds is left for the C++ compiler to fold.
  pm.addPass(createDeepenLoopPrefetchPass());
  // The target's own layouts and memory placement.
  TJ_ASSIGN_OR_RETURN(const CompilerBackend* backend, lookupBackend(target.backend));
  backend->addTargetPasses(pm, target);
  if (failed(pm.run(*module)))
    return absl::InvalidArgumentError(
        absl::StrCat("specialization of '", templ.getSymName().str(), "' failed:\n",
                     diagnostics.text()));

  // Loops the template marks with `tj.unroll` are unrolled once their bounds are constants.
  if (absl::Status unrolled = unrollMarkedLoops(templ); !unrolled.ok())
    return absl::Status(unrolled.code(),
                        absl::StrCat(unrolled.message(), ":\n", diagnostics.text()));

  TJ_RETURN_IF_ERROR(checkStaticShapes(templ));
  if (failed(verify(*module)))
    return absl::InternalError(absl::StrCat("specialized module does not verify:\n",
                                            diagnostics.text()));
  result.templateOp = templ;
  result.module = std::move(module);
  return result;
}

}  // namespace tilejit
