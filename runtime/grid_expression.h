// Grid expressions: how many programs a kernel launches along one axis, as a function of shape
// symbols only (DESIGN principle 3). Parsed once when a kernel is loaded; evaluated on every
// launch without allocating.
//
//   expr := integer | identifier | fn '(' expr ',' expr ')'
//   fn   := add | sub | mul | cdiv | div | mod | min | max
//
// `div` and `mod` floor (like Python), `cdiv` rounds up. Identifiers are shape symbols of the
// kernel's signature, e.g. "cdiv(num_tokens, 4)" or "min(128, cdiv(width, 1024))".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/kernel_metadata.h"

namespace tilejit {

class GridExpression {
 public:
  // evaluate() returns this when the result is undefined (division by zero, overflow).
  static constexpr int64_t kUndefined = INT64_MIN;
  // Deepest evaluation stack an expression may need; deeper ones are rejected by parse().
  static constexpr int kMaxStackDepth = 32;

  GridExpression();  // the constant 1

  // Resolves identifiers to indexes into `symbols`; the error names an unknown symbol and the
  // known ones, or the column where the text stopped making sense.
  static absl::StatusOr<GridExpression> parse(std::string_view text,
                                              absl::Span<const std::string> symbols);

  // `symbolValues[i]` is the value of `symbols[i]` given to parse(). Never allocates.
  int64_t evaluate(const int64_t* symbolValues) const;

  const std::string& text() const { return text_; }

 private:
  enum class Op : uint8_t { kConstant, kSymbol, kAdd, kSub, kMul, kCdiv, kDiv, kMod, kMin, kMax };
  struct Instruction {
    Op op;
    int64_t operand;  // the constant or the symbol index
  };
  friend class GridExpressionParser;

  std::string text_;
  std::vector<Instruction> program_;  // postfix
};

// A kernel's shape symbols in order of first appearance over its arguments' dims: the index
// space of GridExpression symbols and of the values the runtime binds at launch.
std::vector<std::string> shapeSymbols(const KernelMetadata& metadata);

// The three grid expressions of `metadata` parsed against shapeSymbols(metadata); the error
// names the axis. Devices call this in load().
absl::StatusOr<std::array<GridExpression, 3>> parseGrid(const KernelMetadata& metadata);

// Most distinct shape symbols one kernel may have (the runtime binds them in a fixed array).
inline constexpr int kMaxShapeSymbols = 32;

}  // namespace tilejit
