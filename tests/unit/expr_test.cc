// Expr: extents and FLOP counts in op spec files, parsed once and evaluated as int64 or double.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "cannbot/util/expr.h"

namespace cannbot::util {
namespace {

using IntVars = std::map<std::string, int64_t>;
using RealVars = std::map<std::string, double>;

// Parses `text` (which must parse) and evaluates it with integer semantics.
int64_t Int(const std::string& text, const IntVars& vars = {}) {
  auto expr = Expr::Parse(text);
  EXPECT_TRUE(expr.ok()) << expr.status().ToString();
  if (!expr.ok()) return -999999;
  auto value = expr->EvaluateInteger(vars);
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  return value.ok() ? *value : -999999;
}

double Real(const std::string& text, const RealVars& vars = {}) {
  auto expr = Expr::Parse(text);
  EXPECT_TRUE(expr.ok()) << expr.status().ToString();
  if (!expr.ok()) return -999999;
  auto value = expr->EvaluateReal(vars);
  EXPECT_TRUE(value.ok()) << value.status().ToString();
  return value.ok() ? *value : -999999;
}

// The message of a parse error; fails the test if `text` parses.
std::string ParseError(const std::string& text) {
  auto expr = Expr::Parse(text);
  EXPECT_FALSE(expr.ok()) << text;
  if (expr.ok()) return "";
  EXPECT_EQ(expr.status().code(), Status::Code::kInvalidArgument);
  return expr.status().message();
}

// The message of an integer evaluation error; fails the test if it evaluates.
std::string IntError(const std::string& text, const IntVars& vars = {}) {
  auto expr = Expr::Parse(text);
  EXPECT_TRUE(expr.ok()) << expr.status().ToString();
  if (!expr.ok()) return "";
  auto value = expr->EvaluateInteger(vars);
  EXPECT_FALSE(value.ok()) << text << " gave " << (value.ok() ? *value : 0);
  if (value.ok()) return "";
  EXPECT_EQ(value.status().code(), Status::Code::kInvalidArgument);
  return value.status().message();
}

TEST(ExprTest, MultiplicationBindsTighterThanAddition) {
  EXPECT_EQ(Int("2+3*4"), 14);
  EXPECT_EQ(Int("2*3+4"), 10);
  EXPECT_EQ(Int("5*rows*cols + 3*rows", {{"rows", 10}, {"cols", 7}}), 380);
  EXPECT_EQ(Int("10-4%3"), 9);
}

TEST(ExprTest, OperatorsAreLeftAssociative) {
  EXPECT_EQ(Int("10-3-2"), 5);
  EXPECT_EQ(Int("64/4/2"), 8);
  EXPECT_EQ(Int("100%7%4"), 2);
}

TEST(ExprTest, ParenthesesOverridePrecedenceAndSpacesAreIgnored) {
  EXPECT_EQ(Int("(2+3)*4"), 20);
  EXPECT_EQ(Int(" ( ( 1 + 2 ) ) * ( 3 ) "), 9);
  IntVars conv = {{"n", 2}, {"c", 3}, {"h", 32}, {"pad", 1}, {"kh", 3}, {"stride", 2}};
  EXPECT_EQ(Int("(h+2*pad-kh)/stride+1", conv), 16);
  EXPECT_EQ(Int("n*c*((h+2*pad-kh)/stride+1)", conv), 96);
}

TEST(ExprTest, UnaryMinusAndPlus) {
  EXPECT_EQ(Int("-3"), -3);
  EXPECT_EQ(Int("--3"), 3);
  EXPECT_EQ(Int("+3"), 3);
  EXPECT_EQ(Int("2*-x", {{"x", 5}}), -10);
  EXPECT_EQ(Int("-2*3+1"), -5);
  EXPECT_EQ(Int("-(2+3)"), -5);
  EXPECT_DOUBLE_EQ(Real("-x/4", {{"x", 2}}), -0.5);
}

TEST(ExprTest, MinMaxAndCeilDiv) {
  EXPECT_EQ(Int("min(3, 8)"), 3);
  EXPECT_EQ(Int("max(3, 8)"), 8);
  EXPECT_EQ(Int("min(-1, -7)"), -7);
  EXPECT_EQ(Int("ceil_div(10, 4)"), 3);
  EXPECT_EQ(Int("ceil_div(12, 4)"), 3);
  EXPECT_EQ(Int("ceil_div(1, 4)"), 1);
  EXPECT_EQ(Int("ceil_div(-10, 4)"), -2);  // ceil(-2.5)
  EXPECT_EQ(Int("ceil_div(-10, -4)"), 3);  // ceil(2.5)
  EXPECT_EQ(Int("ceil_div(n, tile) * tile", {{"n", 1000}, {"tile", 64}}), 1024);
  EXPECT_EQ(Int("max(min(a, b), 2) + 1", {{"a", 9}, {"b", 1}}), 3);
  EXPECT_DOUBLE_EQ(Real("ceil_div(7, 2)"), 4.0);
  EXPECT_DOUBLE_EQ(Real("max(0.25, 0.5)"), 0.5);
  EXPECT_DOUBLE_EQ(Real("min(0.25, 0.5)"), 0.25);
}

TEST(ExprTest, IntegerDivisionTruncatesWhereRealDivisionDoesNot) {
  EXPECT_EQ(Int("7/2"), 3);
  EXPECT_EQ(Int("-7/2"), -3);  // toward zero, not floor
  EXPECT_EQ(Int("-7%3"), -1);
  EXPECT_DOUBLE_EQ(Real("7/2"), 3.5);
  EXPECT_DOUBLE_EQ(Real("7.5%2"), 1.5);
  EXPECT_DOUBLE_EQ(Real("2*m*n*k", {{"m", 1.5}, {"n", 2}, {"k", 3}}), 18.0);
}

TEST(ExprTest, DecimalLiteralsAreRealsOnly) {
  EXPECT_DOUBLE_EQ(Real("0.5*x", {{"x", 8}}), 4.0);
  EXPECT_DOUBLE_EQ(Real("1e-3"), 0.001);
  EXPECT_DOUBLE_EQ(Real("2.5E+2"), 250.0);
  EXPECT_DOUBLE_EQ(Real(".5 + 5."), 5.5);
  EXPECT_EQ(IntError("x*0.5", {{"x", 8}}), "expression \"x*0.5\": the literal 0.5 is not an integer");
  EXPECT_NE(IntError("1e3").find("the literal 1e3 is not an integer"), std::string::npos);
}

TEST(ExprTest, UnknownNamesAreNamed) {
  EXPECT_EQ(IntError("rows*colz", {{"rows", 2}, {"cols", 3}}),
            "expression \"rows*colz\": unknown name 'colz'");
  auto expr = Expr::Parse("a + b");
  ASSERT_TRUE(expr.ok());
  auto real = expr->EvaluateReal({{"a", 1.0}});
  ASSERT_FALSE(real.ok());
  EXPECT_NE(real.status().message().find("unknown name 'b'"), std::string::npos);
}

TEST(ExprTest, SyntaxErrorsNameTheColumnAndWhatWasExpected) {
  EXPECT_EQ(ParseError("(rows*"),
            "expression \"(rows*\": column 7: expected a number, a name or '('");
  EXPECT_NE(ParseError("(a+b").find("column 5: expected ')'"), std::string::npos);
  EXPECT_NE(ParseError("a b").find("column 3: expected an operator or the end, got 'b'"),
            std::string::npos);
  EXPECT_NE(ParseError("2x").find("column 2:"), std::string::npos);
  EXPECT_NE(ParseError("a + # b").find("column 5: expected a number, a name or '(', got '#'"),
            std::string::npos);
  EXPECT_NE(ParseError("a)").find("column 2:"), std::string::npos);
  EXPECT_NE(ParseError("1e").find("malformed number 1e"), std::string::npos);
  EXPECT_NE(ParseError("1.2.3").find("column 1: malformed number 1.2.3"), std::string::npos);
  EXPECT_NE(ParseError("99999999999999999999").find("out of range"), std::string::npos);
  EXPECT_NE(ParseError("").find("is empty"), std::string::npos);
  EXPECT_NE(ParseError("   ").find("is empty"), std::string::npos);
}

TEST(ExprTest, FunctionsAreCheckedByNameAndArgumentCount) {
  EXPECT_NE(ParseError("floor(a, b)").find("column 1: unknown function 'floor'"),
            std::string::npos);
  EXPECT_NE(ParseError("x + min(a)").find("column 5: min takes 2 arguments, got 1"),
            std::string::npos);
  EXPECT_NE(ParseError("max(a, b, c)").find("max takes 2 arguments, got 3"), std::string::npos);
  EXPECT_NE(ParseError("ceil_div()").find("ceil_div takes 2 arguments, got 0"),
            std::string::npos);
  EXPECT_NE(ParseError("min(a b)").find("column 7: expected ',' or ')'"), std::string::npos);
  EXPECT_NE(ParseError("min(a,)").find("column 7: expected a number"), std::string::npos);
  // A function name without a call is an ordinary variable.
  EXPECT_EQ(Int("min + 1", {{"min", 4}}), 5);
}

TEST(ExprTest, DivisionByZeroIsAnErrorNamingTheExpression) {
  EXPECT_EQ(IntError("a/b", {{"a", 1}, {"b", 0}}), "expression \"a/b\": division by zero");
  EXPECT_NE(IntError("a%0", {{"a", 1}}).find("division by zero"), std::string::npos);
  EXPECT_NE(IntError("ceil_div(4, 0)").find("division by zero"), std::string::npos);
  for (const char* text : {"1/0", "1%0", "ceil_div(1, 0)", "1/(x-x)"}) {
    auto expr = Expr::Parse(text);
    ASSERT_TRUE(expr.ok()) << text;
    auto value = expr->EvaluateReal({{"x", 2.5}});
    ASSERT_FALSE(value.ok()) << text;
    EXPECT_NE(value.status().message().find("division by zero"), std::string::npos) << text;
  }
}

TEST(ExprTest, IntegerOverflowIsAnErrorNotAWrap) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_NE(IntError("a*b", {{"a", int64_t{1} << 32}, {"b", int64_t{1} << 32}})
                .find("integer overflow"),
            std::string::npos);
  EXPECT_NE(IntError("a+1", {{"a", max}}).find("integer overflow in 9223372036854775807 + 1"),
            std::string::npos);
  EXPECT_NE(IntError("a-1", {{"a", min}}).find("integer overflow"), std::string::npos);
  EXPECT_NE(IntError("-a", {{"a", min}}).find("integer overflow"), std::string::npos);
  EXPECT_NE(IntError("a/-1", {{"a", min}}).find("integer overflow"), std::string::npos);
  EXPECT_NE(IntError("ceil_div(a, -1)", {{"a", min}}).find("integer overflow"),
            std::string::npos);
  EXPECT_EQ(Int("a%-1", {{"a", min}}), 0);  // defined here, though it traps in C++ on x86
  EXPECT_EQ(Int("a-1+1", {{"a", max}}), max);
  EXPECT_EQ(Int("9223372036854775807"), max);
}

TEST(ExprTest, DeepNestingAndLongTextAreRefused) {
  auto nested = [](int levels) {
    return std::string(levels, '(') + "x" + std::string(levels, ')');
  };
  EXPECT_EQ(Int(nested(Expr::kMaxDepth), {{"x", 3}}), 3);
  EXPECT_NE(ParseError(nested(Expr::kMaxDepth + 1)).find("nested deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(ParseError(std::string(200, '-') + "1").find("nested deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(ParseError(std::string(100000, '(')).find("longer than 1000 characters"),
            std::string::npos);
  std::string calls;
  for (int i = 0; i < 100; ++i) calls += "min(1,";
  EXPECT_NE(ParseError(calls + "1" + std::string(100, ')')).find("nested deeper"),
            std::string::npos);
  // Long but flat is fine: a 999-character sum.
  std::string sum = "1";
  for (int i = 0; i < 499; ++i) sum += "+1";
  EXPECT_EQ(Int(sum), 500);
}

TEST(ExprTest, VariablesAreSortedAndUnique) {
  auto expr = Expr::Parse("n*c*((h+2*pad-kh)/stride+1) + min(n, c) + n");
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ(expr->Variables(),
            (std::vector<std::string>{"c", "h", "kh", "n", "pad", "stride"}));
  auto constant = Expr::Parse("2*3");
  ASSERT_TRUE(constant.ok());
  EXPECT_TRUE(constant->Variables().empty());
}

TEST(ExprTest, CopiesShareTheParsedTreeAndKeepTheText) {
  Expr copy;
  EXPECT_FALSE(copy.EvaluateInteger({}).ok());  // default-constructed: nothing to evaluate
  {
    auto parsed = Expr::Parse("rows * cols");
    ASSERT_TRUE(parsed.ok());
    copy = *parsed;
  }
  EXPECT_EQ(copy.text(), "rows * cols");
  auto value = copy.EvaluateInteger({{"rows", 6}, {"cols", 7}});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
}

}  // namespace
}  // namespace cannbot::util
