#include "cannbot/ops/spec_elementwise.h"

#include <algorithm>
#include <cctype>

#include "cannbot/ops/dtype_values.h"
#include "cannbot/util/expr.h"

namespace cannbot::ops {

const std::vector<std::string>& VectorMathFunctions() {
  static const std::vector<std::string> functions = {
      "cb_exp",  "cb_expm1", "cb_log", "cb_log1p", "cb_tanh", "cb_erf",
      "cb_sqrt", "cb_rsqrt", "cb_abs", "cb_min",   "cb_max",  "cb_pow"};
  return functions;
}

namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A number: digits, a point, an exponent, an optional f suffix ("1.5f", "2e-3f", "4").
size_t NumberEnd(const std::string& s, size_t i) {
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'f' || s[i] == 'F')) ++i;
  return i;
}

}  // namespace

Status CheckElementwiseExpression(const std::string& expression,
                                  const std::vector<std::string>& names) {
  const std::string operators = "+-*/<>=!?:(),&| \t\n";
  auto allowed = [&](const std::string& word) {
    const auto& fns = VectorMathFunctions();
    return std::find(names.begin(), names.end(), word) != names.end() ||
           std::find(fns.begin(), fns.end(), word) != fns.end();
  };
  int depth = 0;
  for (size_t i = 0; i < expression.size();) {
    const char c = expression[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const size_t end = NumberEnd(expression, i);
      if (end < expression.size() && IsIdentChar(expression[end])) {
        return Status::InvalidArgument("'" + expression.substr(i, end - i + 1) +
                                       "...' is not a number");
      }
      i = end;
      continue;
    }
    if (IsIdentStart(c)) {
      size_t end = i;
      while (end < expression.size() && IsIdentChar(expression[end])) ++end;
      const std::string word = expression.substr(i, end - i);
      if (!allowed(word)) {
        return Status::InvalidArgument("'" + word +
                                       "' is neither an input or scalar of the op nor one of "
                                       "cannbot's vector math functions (cb_exp, cb_log, ...)");
      }
      i = end;
      continue;
    }
    if (operators.find(c) == std::string::npos) {
      return Status::InvalidArgument(std::string("the character '") + c +
                                     "' is not allowed (an expression, not statements)");
    }
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return Status::InvalidArgument("a ')' closes nothing");
    ++i;
  }
  if (depth != 0) return Status::InvalidArgument("a '(' is never closed");
  if (expression.find_first_not_of(" \t\n") == std::string::npos) {
    return Status::InvalidArgument("is empty");
  }
  return Status::Ok();
}

namespace spec_file {
namespace {

void ReadBroadcast(SpecReader& r, const toml::table& root, OpSpec* op) {
  const toml::node* node = root.get("broadcast");
  if (node == nullptr) return;
  const toml::table* table = node->as_table();
  if (table == nullptr) return r.Fail(node, "broadcast", "must be a table: { input = \"inner\" }");
  for (const auto& [key, value] : *table) {
    const std::string input(key.str());
    const std::string field = "broadcast." + input;
    const Param* param = nullptr;
    for (const Param& p : op->params) {
      if (p.name == input && p.kind == ParamKind::kInput) param = &p;
    }
    if (param == nullptr) return r.Fail(&value, field, "'" + input + "' is not an input tensor");
    const auto text = value.value<std::string>();
    if (!text) return r.Fail(&value, field, "must be the inner size, an expression of the sizes");
    auto expr = util::Expr::Parse(*text);
    if (!expr.ok()) return r.Fail(&value, field, expr.status().message());
    for (const Shape& s : op->shapes) {
      auto inner = expr->EvaluateInteger(s.sizes);
      if (!inner.ok() || *inner < 1) {
        return r.Fail(&value, field, "on shape '" + s.label + "': " +
                                         (inner.ok() ? "not a positive size"
                                                     : inner.status().message()));
      }
    }
    op->broadcast[input] = *text;
  }
}

// Every input has the output's element count, or is a broadcast input that tiles it.
Status CheckElementwiseShapes(const OpSpec& op) {
  const Param* out = op.ParamsOfKind(ParamKind::kOutput).front();
  for (const Shape& shape : op.shapes) {
    const int64_t total = out->elements(shape);
    for (const Param* in : op.ParamsOfKind(ParamKind::kInput)) {
      const int64_t n = in->elements(shape);
      auto b = op.broadcast.find(in->name);
      if (b == op.broadcast.end()) {
        if (n == total) continue;
        return Status::InvalidArgument("on shape '" + shape.label + "', input " + in->name +
                                       " has " + std::to_string(n) + " elements and the output " +
                                       std::to_string(total) +
                                       ": a smaller input needs a `broadcast` entry");
      }
      auto inner_value = util::Expr::Parse(b->second)->EvaluateInteger(shape.sizes);
      const int64_t inner = inner_value.ok() ? *inner_value : 0;
      if (inner > 0 && n > 0 && total % (inner * n) == 0) continue;
      return Status::InvalidArgument("on shape '" + shape.label + "', broadcast input " +
                                     in->name + " (" + std::to_string(n) + " elements, inner " +
                                     std::to_string(inner) + ") does not tile the output's " +
                                     std::to_string(total) + " elements");
    }
  }
  return Status::Ok();
}

}  // namespace

void ReadElementwise(SpecReader& r, const toml::table& root, OpSpec* op) {
  ReadBroadcast(r, root, op);
  const auto text = r.String(root, "", "elementwise", false);
  if (!r.ok() || !text) return;
  std::vector<std::string> names;
  int outputs = 0;
  for (const Param& p : op->params) {
    if (p.kind == ParamKind::kInput || p.kind == ParamKind::kScalar) names.push_back(p.name);
    if (p.kind == ParamKind::kOutput) ++outputs;
    if (p.IsTensor() && !DTypeIsFloat(p.dtype)) {
      return r.Fail(root.get("elementwise"), "elementwise",
                    "applies to floating-point tensors only (" + p.name + " is " +
                        DTypeName(p.dtype) + ")");
    }
  }
  if (outputs != 1) {
    return r.Fail(root.get("elementwise"), "elementwise", "needs exactly one output tensor");
  }
  Status s = CheckElementwiseExpression(*text, names);
  if (!s.ok()) return r.Fail(root.get("elementwise"), "elementwise", s.message());
  s = CheckElementwiseShapes(*op);
  if (!s.ok()) return r.Fail(root.get("elementwise"), "elementwise", s.message());
  op->elementwise = *text;
}

void ReadReduce(SpecReader& r, const toml::table& root, OpSpec* op) {
  const toml::node* node = root.get("reduce");
  if (node == nullptr) return;
  const toml::table* table = node->as_table();
  if (table == nullptr) {
    return r.Fail(node, "reduce", "must be a table: { combine = \"sum\", finish = \"acc / cols\" }");
  }
  r.OnlyKeys(*table, "reduce", {"combine", "finish"});
  const auto combine = r.String(*table, "reduce", "combine", true);
  const auto finish = r.String(*table, "reduce", "finish", false);
  if (!r.ok()) return;
  if (*combine != "sum" && *combine != "max" && *combine != "min") {
    return r.Fail(table->get("combine"), "reduce.combine",
                  "must be sum, max or min (got '" + *combine + "')");
  }
  const std::vector<const Param*> in = op->ParamsOfKind(ParamKind::kInput);
  const std::vector<const Param*> out = op->ParamsOfKind(ParamKind::kOutput);
  if (in.size() != 1 || out.size() != 1) {
    return r.Fail(node, "reduce", "needs exactly one input and one output tensor");
  }
  for (const Param* p : {in[0], out[0]}) {
    if (!DTypeIsFloat(p->dtype)) {
      return r.Fail(node, "reduce", "applies to floating-point tensors only (" + p->name +
                                        " is " + DTypeName(p->dtype) + ")");
    }
  }
  // The input is the output's rows laid end to end: [outer, len] -> [outer].
  for (const Shape& shape : op->shapes) {
    const int64_t rows = out[0]->elements(shape), total = in[0]->elements(shape);
    if (rows < 1 || total % rows != 0) {
      return r.Fail(node, "reduce", "on shape '" + shape.label + "', the input's " +
                                        std::to_string(total) + " elements are not rows of the " +
                                        "output's " + std::to_string(rows));
    }
  }
  if (finish) {
    std::vector<std::string> names = {"acc"};
    for (const Param& p : op->params) {
      if (p.kind == ParamKind::kSize || p.kind == ParamKind::kScalar) names.push_back(p.name);
    }
    Status s = CheckElementwiseExpression(*finish, names);
    if (!s.ok()) return r.Fail(table->get("finish"), "reduce.finish", s.message());
    op->reduce_finish = *finish;
  }
  op->reduce = *combine;
}

}  // namespace spec_file
}  // namespace cannbot::ops
