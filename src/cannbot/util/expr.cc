#include "cannbot/util/expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <type_traits>
#include <utility>

namespace cannbot::util {

struct Expr::Node {
  enum class Kind { kNumber, kName, kNeg, kAdd, kSub, kMul, kDiv, kMod, kMin, kMax, kCeilDiv };
  Kind kind = Kind::kNumber;
  std::string text;        // a literal as written, or a name
  bool integral = false;   // the literal was written as plain digits (no '.', no exponent)
  int64_t int_value = 0;   // valid when `integral`
  double real_value = 0;
  std::shared_ptr<const Node> lhs, rhs;  // operands; kNeg has only lhs
};

namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<const Node>;
using Kind = Node::Kind;

// `expression "<text>": <what>`, the text cut short so that hostile input cannot make a huge
// message.
Status ExprError(std::string_view text, const std::string& what) {
  constexpr size_t kShown = 80;
  std::string shown(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  return Status::InvalidArgument("expression \"" + shown + "\": " + what);
}

NodePtr MakeNode(Kind kind, NodePtr lhs, NodePtr rhs = nullptr, std::string text = "") {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->text = std::move(text);
  node->lhs = std::move(lhs);
  node->rhs = std::move(rhs);
  return node;
}

const std::map<std::string, Kind, std::less<>> kFunctions = {
    {"min", Kind::kMin}, {"max", Kind::kMax}, {"ceil_div", Kind::kCeilDiv}};

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Recursive descent; `depth` counts enclosing parentheses, calls and unary signs so that
// hostile input is refused before it can exhaust the stack.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> ParseAll() {
    CANNBOT_ASSIGN_OR_RETURN(NodePtr root, ParseSum(0));
    SkipSpace();
    if (pos_ < text_.size()) return Error(pos_, "expected an operator or the end" + Got());
    return root;
  }
  std::set<std::string> names;  // every name used, filled while parsing

 private:
  Result<NodePtr> ParseSum(int depth) {
    CANNBOT_ASSIGN_OR_RETURN(NodePtr lhs, ParseProduct(depth));
    for (char c = Peek(); c == '+' || c == '-'; c = Peek()) {
      ++pos_;
      CANNBOT_ASSIGN_OR_RETURN(NodePtr rhs, ParseProduct(depth));
      lhs = MakeNode(c == '+' ? Kind::kAdd : Kind::kSub, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  Result<NodePtr> ParseProduct(int depth) {
    CANNBOT_ASSIGN_OR_RETURN(NodePtr lhs, ParseUnary(depth));
    for (char c = Peek(); c == '*' || c == '/' || c == '%'; c = Peek()) {
      ++pos_;
      CANNBOT_ASSIGN_OR_RETURN(NodePtr rhs, ParseUnary(depth));
      Kind kind = c == '*' ? Kind::kMul : c == '/' ? Kind::kDiv : Kind::kMod;
      lhs = MakeNode(kind, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  // Every operand passes through here, so this is the one place the depth is checked.
  Result<NodePtr> ParseUnary(int depth) {
    char c = Peek();
    if (depth > Expr::kMaxDepth) {
      return Error(pos_, "nested deeper than " + std::to_string(Expr::kMaxDepth) + " levels");
    }
    if (c != '-' && c != '+') return ParsePrimary(depth);
    ++pos_;
    CANNBOT_ASSIGN_OR_RETURN(NodePtr operand, ParseUnary(depth + 1));
    return c == '+' ? operand : MakeNode(Kind::kNeg, std::move(operand));
  }

  Result<NodePtr> ParsePrimary(int depth) {
    char c = Peek();
    if (IsDigit(c) || (c == '.' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      return ParseNumber();
    }
    if (IsNameStart(c)) return ParseNameOrCall(depth);
    if (c != '(') return Error(pos_, "expected a number, a name or '('" + Got());
    ++pos_;
    CANNBOT_ASSIGN_OR_RETURN(NodePtr inner, ParseSum(depth + 1));
    CANNBOT_RETURN_IF_ERROR(Expect(')', "expected ')'"));
    return inner;
  }

  // The longest run of digits, '.', 'e' and an exponent's sign, which from_chars (unlike
  // strtod, independent of the locale) must then accept whole. Plain digits are an integer.
  Result<NodePtr> ParseNumber() {
    size_t start = pos_;
    auto in_number = [&](char c, char before) {
      bool exponent_sign = (c == '+' || c == '-') && (before == 'e' || before == 'E');
      return IsDigit(c) || c == '.' || c == 'e' || c == 'E' || exponent_sign;
    };
    while (pos_ < text_.size() && in_number(text_[pos_], text_[pos_ - (pos_ > start)])) ++pos_;
    std::string literal(text_.substr(start, pos_ - start));
    auto node = std::make_shared<Node>();  // kind kNumber
    node->text = literal;
    node->integral = literal.find_first_not_of("0123456789") == std::string::npos;
    const char* first = literal.data();
    const char* last = first + literal.size();
    auto real = std::from_chars(first, last, node->real_value);
    if (real.ec == std::errc::result_out_of_range ||
        (node->integral && std::from_chars(first, last, node->int_value).ec != std::errc())) {
      return Error(start, "number " + literal + " is out of range");
    }
    if (real.ec != std::errc() || real.ptr != last) {
      return Error(start, "malformed number " + literal);
    }
    return NodePtr(node);
  }

  Result<NodePtr> ParseNameOrCall(int depth) {
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    if (Peek() != '(') {
      names.insert(name);
      return MakeNode(Kind::kName, nullptr, nullptr, std::move(name));
    }
    auto fn = kFunctions.find(name);
    if (fn == kFunctions.end()) {
      return Error(start, "unknown function '" + name + "' (known: min, max, ceil_div)");
    }
    ++pos_;  // '('
    std::vector<NodePtr> args;
    while (Peek() != ')') {
      if (!args.empty()) CANNBOT_RETURN_IF_ERROR(Expect(',', "expected ',' or ')'"));
      CANNBOT_ASSIGN_OR_RETURN(NodePtr arg, ParseSum(depth + 1));
      args.push_back(std::move(arg));
    }
    ++pos_;  // ')'
    if (args.size() != 2) {
      return Error(start, name + " takes 2 arguments, got " + std::to_string(args.size()));
    }
    return MakeNode(fn->second, std::move(args[0]), std::move(args[1]));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // Skips whitespace; the next character, or '\0' at the end.
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  Status Expect(char c, const std::string& what) {
    if (Peek() != c) return Error(pos_, what + Got());
    ++pos_;
    return Status::Ok();
  }

  // ", got 'x'" for the character at pos_, or nothing at the end of the text.
  std::string Got() const {
    if (pos_ >= text_.size()) return "";
    return std::string(", got '") + text_[pos_] + "'";
  }

  Status Error(size_t pos, const std::string& what) const {
    return ExprError(text_, "column " + std::to_string(pos + 1) + ": " + what);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// `/` and `%` as in C++ (truncating); ceil_div rounds the quotient toward +infinity.
Result<int64_t> Divide(Kind kind, int64_t a, int64_t b, std::string_view text) {
  if (b == 0) return ExprError(text, "division by zero");
  // INT64_MIN / -1 is the one quotient that does not fit; it (and INT64_MIN % -1) traps on x86.
  if (b == -1 && a == INT64_MIN && kind != Kind::kMod) {
    return ExprError(text, "integer overflow in " + std::to_string(a) + " / -1");
  }
  if (kind == Kind::kMod) return b == -1 ? 0 : a % b;
  if (kind == Kind::kDiv) return a / b;
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0))) ++q;  // truncation rounded a positive quotient down
  return q;
}

Result<int64_t> Apply(Kind kind, int64_t a, int64_t b, std::string_view text) {
  int64_t r = 0;
  const char* op = nullptr;  // set when the result does not fit
  switch (kind) {
    case Kind::kAdd: if (__builtin_add_overflow(a, b, &r)) op = " + "; break;
    case Kind::kSub: if (__builtin_sub_overflow(a, b, &r)) op = " - "; break;
    case Kind::kMul: if (__builtin_mul_overflow(a, b, &r)) op = " * "; break;
    case Kind::kMin: return std::min(a, b);
    case Kind::kMax: return std::max(a, b);
    default: return Divide(kind, a, b, text);
  }
  if (!op) return r;
  return ExprError(text, "integer overflow in " + std::to_string(a) + op + std::to_string(b));
}

Result<double> Apply(Kind kind, double a, double b, std::string_view text) {
  switch (kind) {
    case Kind::kAdd: return a + b;
    case Kind::kSub: return a - b;
    case Kind::kMul: return a * b;
    case Kind::kMin: return std::min(a, b);
    case Kind::kMax: return std::max(a, b);
    default: break;
  }
  if (b == 0) return ExprError(text, "division by zero");
  if (kind == Kind::kDiv) return a / b;
  if (kind == Kind::kMod) return std::fmod(a, b);
  return std::ceil(a / b);
}

// T is int64_t or double, picking the overloads above. Recursion depth is bounded by the
// tree's, which Parse keeps small.
template <typename T>
Result<T> Walk(const Node& node, const std::map<std::string, T>& vars, std::string_view text) {
  if (node.kind == Kind::kNumber) {
    if constexpr (std::is_same_v<T, double>) {
      return node.real_value;
    } else {
      if (!node.integral) return ExprError(text, "the literal " + node.text + " is not an integer");
      return node.int_value;
    }
  }
  if (node.kind == Kind::kName) {
    auto it = vars.find(node.text);
    if (it == vars.end()) return ExprError(text, "unknown name '" + node.text + "'");
    return it->second;
  }
  CANNBOT_ASSIGN_OR_RETURN(T a, Walk(*node.lhs, vars, text));
  if (node.kind == Kind::kNeg) return Apply(Kind::kSub, T{0}, a, text);  // checked for int64
  CANNBOT_ASSIGN_OR_RETURN(T b, Walk(*node.rhs, vars, text));
  return Apply(node.kind, a, b, text);
}

}  // namespace

Result<Expr> Expr::Parse(std::string_view text) {
  if (text.size() > kMaxLength) {
    return ExprError(text, "longer than " + std::to_string(kMaxLength) + " characters (" +
                               std::to_string(text.size()) + ")");
  }
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
    return ExprError(text, "is empty");
  }
  Parser parser(text);
  CANNBOT_ASSIGN_OR_RETURN(NodePtr root, parser.ParseAll());
  Expr expr;
  expr.text_ = std::string(text);
  expr.root_ = std::move(root);
  expr.variables_.assign(parser.names.begin(), parser.names.end());
  return expr;
}

Result<int64_t> Expr::EvaluateInteger(const std::map<std::string, int64_t>& vars) const {
  if (!root_) return ExprError(text_, "is empty");
  return Walk(*root_, vars, text_);
}

Result<double> Expr::EvaluateReal(const std::map<std::string, double>& vars) const {
  if (!root_) return ExprError(text_, "is empty");
  return Walk(*root_, vars, text_);
}

}  // namespace cannbot::util
