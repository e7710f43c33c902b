#include "compiler/specialize/template_diagnostics.h"

#include <cctype>
#include <vector>

#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

namespace tilejit {

size_t findUnclosedBrace(std::string_view text) {
  // A brace's indentation is that of the line its op starts on: an op whose operands run over
  // several lines opens its region at the end of a deeper indented continuation line.
  struct Open {
    size_t offset;
    size_t indent;
  };
  std::vector<Open> open;
  size_t misclosed = std::string_view::npos;
  size_t parenDepth = 0, statementIndent = 0, lineIndent = 0, lineStart = 0;
  bool blankSoFar = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      lineStart = i + 1;
      blankSoFar = true;
      continue;
    }
    if (blankSoFar && (c == ' ' || c == '\t')) continue;
    bool firstOnLine = blankSoFar;
    if (blankSoFar) {
      blankSoFar = false;
      lineIndent = i - lineStart;
      if (parenDepth == 0) statementIndent = lineIndent;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = std::min(text.find('\n', i), text.size()) - 1;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\') ++i;
      if (i < text.size() && text[i] == '\n') --i;  // unterminated: the line still ends here
    } else if (c == '(' || c == '[') {
      ++parenDepth;
    } else if ((c == ')' || c == ']') && parenDepth > 0) {
      --parenDepth;
    } else if (c == '{') {
      open.push_back({i, statementIndent});
    } else if (c == '}' && !open.empty()) {
      if (firstOnLine && lineIndent < open.back().indent && misclosed == std::string_view::npos)
        misclosed = open.back().offset;
      open.pop_back();
    }
  }
  if (open.empty()) return std::string_view::npos;
  return misclosed != std::string_view::npos ? misclosed : open.back().offset;
}

std::string describeUnclosedBrace(const llvm::SourceMgr& sourceMgr) {
  const llvm::MemoryBuffer* buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::string_view text(buffer->getBufferStart(), buffer->getBufferSize());
  size_t brace = findUnclosedBrace(text);
  if (brace == std::string_view::npos) return "";
  // The note points at the last character, so that it shows the file's last line.
  size_t end = text.find_last_not_of(" \t\r\n");
  std::string out;
  llvm::raw_string_ostream os(out);
  sourceMgr.PrintMessage(os, llvm::SMLoc::getFromPointer(text.data() + brace),
                         llvm::SourceMgr::DK_Error, "this '{' is never closed");
  sourceMgr.PrintMessage(os, llvm::SMLoc::getFromPointer(text.data() + end),
                         llvm::SourceMgr::DK_Note,
                         "the file ends here, inside the '{' above; the parser reports:");
  return out;
}

UndeclaredValueNamer::UndeclaredValueNamer(mlir::MLIRContext& context,
                                           llvm::SourceMgr& sourceMgr)
    : context_(context),
      id_(context.getDiagEngine().registerHandler([&sourceMgr](mlir::Diagnostic& diagnostic) {
        std::string message = diagnostic.str();
        auto location = mlir::dyn_cast<mlir::FileLineColLoc>(diagnostic.getLocation());
        if (message != "use of undeclared SSA value name" || !location)
          return mlir::failure();
        llvm::SMLoc at = sourceMgr.FindLocForLineAndColumn(
            sourceMgr.getMainFileID(), location.getLine(), location.getColumn());
        const llvm::MemoryBuffer* buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        if (!at.isValid() || *at.getPointer() != '%') return mlir::failure();
        const char* end = at.getPointer() + 1;
        while (end < buffer->getBufferEnd() &&
               (std::isalnum(static_cast<unsigned char>(*end)) || *end == '_' || *end == '$' ||
                *end == '.' || *end == '-'))
          ++end;
        diagnostic << " '" << llvm::StringRef(at.getPointer(), end - at.getPointer()) << "'";
        return mlir::failure();  // printed by the handler below, with the source line
      })) {}

UndeclaredValueNamer::~UndeclaredValueNamer() { context_.getDiagEngine().eraseHandler(id_); }

}  // namespace tilejit
