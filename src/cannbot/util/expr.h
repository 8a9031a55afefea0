// Expr: a small arithmetic expression over named variables, as written in operator spec files
// for tensor extents ("rows*cols", "(h+2*pad-kh)/stride+1") and for FLOP or byte counts
// ("2*m*n*k", "5*rows*cols + 3*rows").
//
// Grammar: integer and decimal literals (2, 0.5, 1e-3), names [A-Za-z_][A-Za-z0-9_]*,
// binary + - * / % (left associative, * / % binding tighter than + -), unary - and +,
// parentheses, and the functions min(a,b), max(a,b) and ceil_div(a,b). Whitespace is ignored.
// Spec files are user input, so Parse bounds the text (1000 characters) and the nesting
// (64 levels) rather than trusting it not to exhaust the stack.
//
// The same parsed expression evaluates either with integer semantics (extents: truncating
// division, checked overflow, decimal literals refused) or real semantics (FLOP counts).
//
// Ownership: an Expr owns its text and shares an immutable syntax tree between copies.
// Thread-safety: immutable after Parse; const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::util {

class Expr {
 public:
  // Longest text and deepest nesting (parentheses, calls, unary signs) that Parse accepts.
  static constexpr size_t kMaxLength = 1000;
  static constexpr int kMaxDepth = 64;

  // An empty expression, only so that it can be a member assigned later; evaluating it is an
  // InvalidArgument error.
  Expr() = default;

  // InvalidArgument naming the 1-based column and what was expected there, e.g.
  // `expression "(rows*": column 7: expected a number, a name or '('`.
  static Result<Expr> Parse(std::string_view text);

  // The text as given to Parse.
  const std::string& text() const { return text_; }
  // The names the expression uses, sorted and without repeats.
  std::vector<std::string> Variables() const { return variables_; }

  // Integer semantics: `/` truncates toward zero, `%` is the C++ remainder, ceil_div rounds
  // the quotient up. Division by zero, int64 overflow, a decimal literal and a name missing
  // from `vars` are InvalidArgument errors quoting the expression.
  Result<int64_t> EvaluateInteger(const std::map<std::string, int64_t>& vars) const;
  // Real semantics: `/` is real division, `%` is fmod, ceil_div(a,b) is ceil(a/b). Division
  // by zero and a missing name are InvalidArgument errors quoting the expression.
  Result<double> EvaluateReal(const std::map<std::string, double>& vars) const;

  struct Node;  // opaque: the syntax tree, defined in expr.cc

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;  // null only for a default-constructed Expr
  std::vector<std::string> variables_;
};

}  // namespace cannbot::util
