#include "runtime/grid_expression.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "support/status.h"

namespace tilejit {

class GridExpressionParser {
 public:
  using Op = GridExpression::Op;

  GridExpressionParser(std::string_view text, absl::Span<const std::string> symbols)
      : text_(text), symbols_(symbols) {}

  absl::Status parse(std::vector<GridExpression::Instruction>& program) {
    program_ = &program;
    skipSpace();
    if (absl::Status status = parseExpression(0); !status.ok()) return status;
    skipSpace();
    if (position_ != text_.size())
      return error(absl::StrCat("unexpected '", asAbsl(text_.substr(position_, 1)),
                                "' after a complete expression"));
    return absl::OkStatus();
  }

 private:
  struct Function {
    std::string_view name;
    Op op;
  };
  static constexpr Function kFunctions[] = {
      {"add", Op::kAdd}, {"sub", Op::kSub}, {"mul", Op::kMul}, {"cdiv", Op::kCdiv},
      {"div", Op::kDiv}, {"mod", Op::kMod}, {"min", Op::kMin}, {"max", Op::kMax},
  };

  absl::Status error(std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "grid expression '", asAbsl(text_), "': ", asAbsl(what), " at column ", position_ + 1));
  }

  void skipSpace() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }

  bool peek(char c) {
    skipSpace();
    return position_ < text_.size() && text_[position_] == c;
  }

  absl::Status expect(char c) {
    if (peek(c)) {
      ++position_;
      return absl::OkStatus();
    }
    if (position_ == text_.size())
      return error(absl::StrCat("expected '", std::string(1, c), "' but the text ended"));
    return error(absl::StrCat("expected '", std::string(1, c), "' but found '",
                              asAbsl(text_.substr(position_, 1)), "'"));
  }

  void emit(Op op, int64_t operand) { program_->push_back({op, operand}); }

  // `depth` is the number of values already on the evaluation stack below this expression.
  absl::Status parseExpression(int depth) {
    skipSpace();
    if (depth + 1 > GridExpression::kMaxStackDepth)
      return error(
          absl::StrCat("expression nests deeper than ", GridExpression::kMaxStackDepth, " levels"));
    if (position_ == text_.size()) return error("expected an expression but the text ended");
    char c = text_[position_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = position_;
      int64_t value = 0;
      while (position_ < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[position_]))) {
        int digit = text_[position_] - '0';
        if (value > (INT64_MAX - digit) / 10) {
          position_ = start;
          return error("integer literal does not fit in 64 bits");
        }
        value = value * 10 + digit;
        ++position_;
      }
      emit(Op::kConstant, value);
      return absl::OkStatus();
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return error(absl::StrCat("expected an integer, a shape symbol or a function, found '",
                                std::string(1, c), "'"));
    size_t start = position_;
    while (position_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_'))
      ++position_;
    std::string_view name = text_.substr(start, position_ - start);

    if (peek('(')) {
      const Function* function = nullptr;
      for (const Function& candidate : kFunctions)
        if (candidate.name == name) function = &candidate;
      if (!function) {
        position_ = start;
        std::vector<std::string> names;
        for (const Function& candidate : kFunctions) names.emplace_back(candidate.name);
        return error(absl::StrCat("unknown function '", asAbsl(name),
                                  "'; known functions: ", absl::StrJoin(names, ", ")));
      }
      ++position_;  // '('
      if (absl::Status status = parseExpression(depth); !status.ok()) return status;
      if (absl::Status status = expect(','); !status.ok()) return status;
      if (absl::Status status = parseExpression(depth + 1); !status.ok()) return status;
      if (absl::Status status = expect(')'); !status.ok()) return status;
      emit(function->op, 0);
      return absl::OkStatus();
    }

    auto it = std::find(symbols_.begin(), symbols_.end(), name);
    if (it == symbols_.end()) {
      position_ = start;
      return error(absl::StrCat("unknown shape symbol '", asAbsl(name), "'; ",
                                symbols_.empty() ? std::string("the kernel has no shape symbols")
                                                 : absl::StrCat("the kernel's shape symbols are ",
                                                                absl::StrJoin(symbols_, ", "))));
    }
    emit(Op::kSymbol, it - symbols_.begin());
    return absl::OkStatus();
  }

  std::string_view text_;
  absl::Span<const std::string> symbols_;
  size_t position_ = 0;
  std::vector<GridExpression::Instruction>* program_ = nullptr;
};

GridExpression::GridExpression() : text_("1"), program_{{Op::kConstant, 1}} {}

absl::StatusOr<GridExpression> GridExpression::parse(std::string_view text,
                                                     absl::Span<const std::string> symbols) {
  GridExpression expression;
  expression.text_ = std::string(text);
  expression.program_.clear();
  GridExpressionParser parser(expression.text_, symbols);
  if (absl::Status status = parser.parse(expression.program_); !status.ok()) return status;
  return expression;
}

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --quotient;
  return quotient;
}

}  // namespace

int64_t GridExpression::evaluate(const int64_t* symbolValues) const {
  int64_t stack[kMaxStackDepth];
  int top = 0;  // number of values on the stack
  for (const Instruction& instruction : program_) {
    if (instruction.op == Op::kConstant) {
      stack[top++] = instruction.operand;
      continue;
    }
    if (instruction.op == Op::kSymbol) {
      stack[top++] = symbolValues[instruction.operand];
      continue;
    }
    int64_t b = stack[--top];
    int64_t a = stack[top - 1];
    int64_t result = 0;
    if (a == kUndefined || b == kUndefined) return kUndefined;
    switch (instruction.op) {
      case Op::kAdd:
        if (__builtin_add_overflow(a, b, &result)) return kUndefined;
        break;
      case Op::kSub:
        if (__builtin_sub_overflow(a, b, &result)) return kUndefined;
        break;
      case Op::kMul:
        if (__builtin_mul_overflow(a, b, &result)) return kUndefined;
        break;
      case Op::kCdiv:
        if (b == 0 || (a == INT64_MIN && b == -1)) return kUndefined;
        result = floorDiv(a, b) + (a % b != 0 ? 1 : 0);
        break;
      case Op::kDiv:
        if (b == 0 || (a == INT64_MIN && b == -1)) return kUndefined;
        result = floorDiv(a, b);
        break;
      case Op::kMod:
        if (b == 0) return kUndefined;
        result = b == -1 ? 0 : a % b;  // b == -1 would trap on INT64_MIN % -1
        if (result != 0 && ((result < 0) != (b < 0))) result += b;
        break;
      case Op::kMin:
        result = std::min(a, b);
        break;
      case Op::kMax:
        result = std::max(a, b);
        break;
      case Op::kConstant:
      case Op::kSymbol:
        break;
    }
    if (result == kUndefined) return kUndefined;
    stack[top - 1] = result;
  }
  return top == 1 ? stack[0] : kUndefined;
}

std::vector<std::string> shapeSymbols(const KernelMetadata& metadata) {
  std::vector<std::string> symbols;
  for (const ArgSpec& arg : metadata.args)
    for (const DimSpec& dim : arg.dims)
      if (dim.isSymbolic() &&
          std::find(symbols.begin(), symbols.end(), dim.symbol) == symbols.end())
        symbols.push_back(dim.symbol);
  return symbols;
}

absl::StatusOr<std::array<GridExpression, 3>> parseGrid(const KernelMetadata& metadata) {
  std::vector<std::string> symbols = shapeSymbols(metadata);
  if (symbols.size() > static_cast<size_t>(kMaxShapeSymbols))
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", metadata.templateName, "' has ", symbols.size(),
                     " shape symbols; the runtime binds at most ", kMaxShapeSymbols));
  std::array<GridExpression, 3> grid;
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    absl::StatusOr<GridExpression> expression = GridExpression::parse(metadata.grid[axis], symbols);
    if (!expression.ok())
      return absl::InvalidArgumentError(absl::StrCat("kernel '", metadata.templateName, "' grid ",
                                                     kAxes[axis], ": ",
                                                     expression.status().message()));
    grid[axis] = *std::move(expression);
  }
  return grid;
}

}  // namespace tilejit
