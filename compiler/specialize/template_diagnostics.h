// What the template loader adds to MLIR's parse diagnostics: a `{` left open is reported where
// it opens (MLIR's parser only notices at the end of the file, with a message about whatever
// token it expected there), and "use of undeclared SSA value name" says which name.
#pragma once

#include <string>
#include <string_view>

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

namespace tilejit {

// The offset of the `{` that `text` most likely leaves open, or npos where every `{` is closed.
// Comments and string literals are skipped; where several are open, the one whose `}` is
// missing by indentation (a `}` less indented than the line that opened the brace it closes)
// is chosen, else the innermost.
size_t findUnclosedBrace(std::string_view text);

// The unclosed `{` of the main buffer of `sourceMgr` as an error with its source line and caret
// and a note at the end of the file, or "" where every `{` is closed.
std::string describeUnclosedBrace(const llvm::SourceMgr& sourceMgr);

// While alive, appends the name to MLIR's "use of undeclared SSA value name" errors (read off
// the source at the diagnostic's location); other diagnostics pass untouched to the handlers
// registered before it.
class UndeclaredValueNamer {
 public:
  UndeclaredValueNamer(mlir::MLIRContext& context, llvm::SourceMgr& sourceMgr);
  ~UndeclaredValueNamer();
  UndeclaredValueNamer(const UndeclaredValueNamer&) = delete;
  UndeclaredValueNamer& operator=(const UndeclaredValueNamer&) = delete;

 private:
  mlir::MLIRContext& context_;
  mlir::DiagnosticEngine::HandlerID id_;
};

}  // namespace tilejit
