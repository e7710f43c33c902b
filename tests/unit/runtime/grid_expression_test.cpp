#include "runtime/grid_expression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::vector<std::string> kSymbols = {"num_tokens", "num_seqs", "width"};

int64_t eval(const std::string& text, std::vector<int64_t> values = {0, 0, 0}) {
  absl::StatusOr<GridExpression> expression = GridExpression::parse(text, kSymbols);
  EXPECT_TRUE(expression.ok()) << expression.status();
  if (!expression.ok()) return -12345;
  return expression->evaluate(values.data());
}

std::string parseError(const std::string& text) {
  absl::StatusOr<GridExpression> expression = GridExpression::parse(text, kSymbols);
  EXPECT_FALSE(expression.ok()) << text;
  return expression.ok() ? "" : std::string(expression.status().message());
}

TEST(GridExpression, Evaluates) {
  EXPECT_EQ(eval("128"), 128);
  EXPECT_EQ(eval("num_seqs", {0, 7, 0}), 7);
  EXPECT_EQ(eval("cdiv(num_tokens, 4)", {13, 0, 0}), 4);
  EXPECT_EQ(eval("cdiv(num_tokens, 4)", {12, 0, 0}), 3);
  EXPECT_EQ(eval("cdiv(num_tokens, 4)", {0, 0, 0}), 0);
  EXPECT_EQ(eval("mul(num_seqs, 2)", {0, 5, 0}), 10);
  EXPECT_EQ(eval("min(128, cdiv(width, 1024))", {0, 0, 5000}), 5);
  EXPECT_EQ(eval("min(128, cdiv(width, 1024))", {0, 0, 1 << 30}), 128);
  EXPECT_EQ(eval("  add ( sub(num_tokens,1) , max(num_seqs, width) ) ", {10, 3, 4}), 13);
  EXPECT_EQ(eval("mod(num_tokens, 4)", {11, 0, 0}), 3);
  EXPECT_EQ(eval("div(num_tokens, 4)", {11, 0, 0}), 2);
}

TEST(GridExpression, DivisionFloorsAndCdivRoundsUp) {
  // Python semantics, also for negative intermediate values.
  EXPECT_EQ(eval("div(sub(0, 7), 2)"), -4);
  EXPECT_EQ(eval("mod(sub(0, 7), 2)"), 1);
  EXPECT_EQ(eval("cdiv(sub(0, 7), 2)"), -3);
  EXPECT_EQ(eval("cdiv(7, sub(0, 2))"), -3);
  EXPECT_EQ(eval("mod(7, sub(0, 2))"), -1);
}

TEST(GridExpression, UndefinedResults) {
  EXPECT_EQ(eval("cdiv(num_tokens, num_seqs)", {4, 0, 0}), GridExpression::kUndefined);
  EXPECT_EQ(eval("mod(4, 0)"), GridExpression::kUndefined);
  EXPECT_EQ(eval("mul(4611686018427387904, 4)"), GridExpression::kUndefined);
  EXPECT_EQ(eval("add(1, cdiv(1, 0))"), GridExpression::kUndefined);
}

TEST(GridExpression, DefaultIsOne) {
  GridExpression expression;
  EXPECT_EQ(expression.evaluate(nullptr), 1);
  EXPECT_EQ(expression.text(), "1");
}

TEST(GridExpression, ParseErrors) {
  EXPECT_THAT(parseError("cdiv(num_token, 4)"), AllOf(HasSubstr("unknown shape symbol 'num_token'"),
                                                      HasSubstr("num_tokens, num_seqs, width")));
  EXPECT_THAT(parseError("pow(2, 3)"),
              AllOf(HasSubstr("unknown function 'pow'"), HasSubstr("cdiv")));
  EXPECT_THAT(parseError("cdiv(num_tokens, 4"), HasSubstr("expected ')' but the text ended"));
  EXPECT_THAT(parseError("cdiv(num_tokens 4)"), HasSubstr("expected ','"));
  EXPECT_THAT(parseError("4 4"), HasSubstr("after a complete expression"));
  EXPECT_THAT(parseError(""), HasSubstr("expected an expression"));
  EXPECT_THAT(parseError("-4"), HasSubstr("found '-'"));
  EXPECT_THAT(parseError("99999999999999999999"), HasSubstr("does not fit in 64 bits"));
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "add(1, " + deep + ")";
  EXPECT_THAT(parseError(deep), HasSubstr("nests deeper"));
}

TEST(GridExpression, ErrorsWithNoSymbols) {
  absl::StatusOr<GridExpression> expression = GridExpression::parse("n", {});
  ASSERT_FALSE(expression.ok());
  EXPECT_THAT(expression.status().message(), HasSubstr("the kernel has no shape symbols"));
}

TEST(GridExpression, LeftNestingNeedsNoDeepStack) {
  // Left-nested operands leave one value on the stack, so long chains stay within the limit.
  std::string chain = "1";
  for (int i = 0; i < 100; ++i) chain = "add(" + chain + ", 1)";
  EXPECT_EQ(eval(chain), 101);
}

TEST(ShapeSymbols, FirstAppearanceOrder) {
  KernelMetadata metadata;
  metadata.args = {
      {"a", ArgSpec::Kind::kView, DType::kF32, {{"m"}, {"", 4}, {"n"}}},
      {"s", ArgSpec::Kind::kScalar, DType::kF32, {}},
      {"b", ArgSpec::Kind::kView, DType::kF32, {{"k"}, {"m"}}},
  };
  EXPECT_EQ(shapeSymbols(metadata), (std::vector<std::string>{"m", "n", "k"}));
  metadata.grid = {"k", "mul(m, n)", "1"};
  absl::StatusOr<std::array<GridExpression, 3>> grid = parseGrid(metadata);
  ASSERT_TRUE(grid.ok()) << grid.status();
  int64_t values[] = {2, 3, 5};
  EXPECT_EQ((*grid)[0].evaluate(values), 5);
  EXPECT_EQ((*grid)[1].evaluate(values), 6);
  metadata.templateName = "demo";
  metadata.grid[2] = "q";
  EXPECT_THAT(parseGrid(metadata).status().message(),
              AllOf(HasSubstr("kernel 'demo' grid z"), HasSubstr("unknown shape symbol 'q'")));
}

}  // namespace
}  // namespace tilejit
