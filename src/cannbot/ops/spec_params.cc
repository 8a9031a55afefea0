#include "cannbot/ops/spec_shapes.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include <toml++/toml.h>

#include "cannbot/ops/spec_reader.h"
#include "cannbot/ops/spec_values.h"
#include "cannbot/util/expr.h"

namespace cannbot::ops::spec_file {
namespace {

// The dimensions an extent names: its top-level factors (`rows*cols` -> [rows, cols]); a
// single dimension when it is not a product. Unset when a factor does not parse on its own.
std::function<std::vector<int64_t>(const Shape&)> ExtentDims(const std::string& extent) {
  std::vector<util::Expr> factors;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= extent.size(); ++i) {
    const char c = i < extent.size() ? extent[i] : '*';
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c != '*' || depth != 0) continue;
    auto factor = util::Expr::Parse(extent.substr(start, i - start));
    if (!factor.ok()) return nullptr;
    factors.push_back(*factor);
    start = i + 1;
  }
  if (factors.size() < 2) return nullptr;
  return [factors](const Shape& s) {
    std::vector<int64_t> dims;
    for (const util::Expr& f : factors) {
      auto n = f.EvaluateInteger(s.sizes);
      dims.push_back(n.ok() ? *n : 0);
    }
    return dims;
  };
}

}  // namespace

bool IsIdentifier(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

namespace {

void ReadParam(SpecReader& r, const toml::table& t, const std::string& where, OpSpec* op,
               ParamFacts* facts) {
  r.OnlyKeys(t, where,
             {"name", "kind", "dtype", "extent", "min", "max", "default", "multiple_of"});
  const auto name = r.String(t, where, "name", true);
  const auto kind = r.String(t, where, "kind", true);
  if (!r.ok()) return;
  // Keys of another kind are mistakes, not hints: a scalar's dtype would be silently float.
  const std::map<std::string, std::set<std::string>> own_keys = {
      {"input", {"dtype", "extent"}}, {"output", {"dtype", "extent"}},
      {"size", {"min", "max", "multiple_of"}}, {"scalar", {"default", "min", "max"}}};
  if (auto own = own_keys.find(*kind); own != own_keys.end()) {
    for (const char* key : {"dtype", "extent", "min", "max", "default", "multiple_of"}) {
      if (t.contains(key) && own->second.count(key) == 0) {
        return r.Fail(t.get(key), where + "." + key,
                      "does not apply to a " + *kind + " parameter" +
                          (*kind == "scalar" ? " (scalars are float; integer attributes are "
                                               "sizes)"
                                             : ""));
      }
    }
  }
  if (!IsIdentifier(*name)) return r.Fail(t.get("name"), where + ".name", "must be a C identifier");
  Param p;
  p.name = *name;
  const std::map<std::string, ParamKind> kinds = {{"input", ParamKind::kInput},
                                                  {"output", ParamKind::kOutput},
                                                  {"size", ParamKind::kSize},
                                                  {"scalar", ParamKind::kScalar}};
  auto k = kinds.find(*kind);
  if (k == kinds.end()) {
    const std::string extra = *kind == "inout" || *kind == "in-out"
                                  ? " (in-out tensors are not supported yet: declare an input "
                                    "and a separate output)"
                                  : "";
    return r.Fail(t.get("kind"), where + ".kind",
                  "must be one of: input, output, size, scalar (got \"" + *kind + "\")" + extra);
  }
  p.kind = k->second;
  if (p.IsTensor()) {
    const auto dtype = r.String(t, where, "dtype", true);
    const auto extent = r.String(t, where, "extent", true);
    if (!r.ok()) return;
    if (*dtype == "T") {
      if (!facts->type_parameter) {
        return r.Fail(t.get("dtype"), where + ".dtype",
                      "\"T\" stands for each dtype of a top-level `dtypes` list, which this "
                      "spec does not have");
      }
      p.dtype = *facts->type_parameter;
    } else {
      auto parsed_dtype = ParseDType(*dtype, where + ".dtype");
      if (!parsed_dtype.ok()) {
        return r.Fail(t.get("dtype"), where + ".dtype", parsed_dtype.status().message());
      }
      p.dtype = *parsed_dtype;
    }
    p.extent = *extent;
    auto expr = util::Expr::Parse(*extent);
    if (!expr.ok()) return r.Fail(t.get("extent"), where + ".extent", expr.status().message());
    facts->extents[p.name] = *expr;
    p.elements = [e = *expr](const Shape& s) {
      auto n = e.EvaluateInteger(s.sizes);
      return n.ok() ? *n : 0;  // check_shape refuses such a shape; counts stay sane
    };
    p.dims = ExtentDims(*extent);
  } else if (p.kind == ParamKind::kSize) {
    const auto min = r.Integer(t, where, "min", false);
    const auto max = r.Integer(t, where, "max", false);
    if (min || max) {
      if (!(min && max) || *min < 0 || *min > *max) {
        return r.Fail(&t, where, "min and max go together, with 0 <= min <= max");
      }
      facts->bounds[p.name] = {*min, *max};
    }
    if (const auto multiple = r.Integer(t, where, "multiple_of", false)) {
      if (*multiple < 1) return r.Fail(t.get("multiple_of"), where + ".multiple_of", "must be >= 1");
      if (min && max && (*min + *multiple - 1) / *multiple * *multiple > *max) {
        return r.Fail(&t, where, "no multiple of " + std::to_string(*multiple) + " lies in [" +
                                     std::to_string(*min) + ", " + std::to_string(*max) + "]");
      }
      facts->multiples[p.name] = *multiple;
    }
  } else {
    if (const auto d = r.Number(t, where, "default", false)) {
      facts->scalar_defaults[p.name] = static_cast<float>(*d);
    }
    const auto min = r.Number(t, where, "min", false);
    const auto max = r.Number(t, where, "max", false);
    if (min || max) {
      facts->scalar_bounds[p.name] = {min.value_or(-HUGE_VAL), max.value_or(HUGE_VAL)};
    }
  }
  op->params.push_back(std::move(p));
}

}  // namespace

void ReadParams(SpecReader& r, const toml::table& root, OpSpec* op, ParamFacts* facts) {
  const auto tables = r.Tables(root, "params", true);
  std::set<std::string> seen;
  for (size_t i = 0; i < tables.size() && r.ok(); ++i) {
    const std::string where = "params[" + std::to_string(i) + "]";
    ReadParam(r, *tables[i], where, op, facts);
    if (r.ok() && !seen.insert(op->params.back().name).second) {
      r.Fail(tables[i], where + ".name", "duplicate parameter '" + op->params.back().name + "'");
    }
  }
  if (!r.ok()) return;
  std::set<std::string> sizes;
  bool output = false;
  for (const Param& p : op->params) {
    if (p.kind == ParamKind::kSize) sizes.insert(p.name);
    output = output || p.kind == ParamKind::kOutput;
  }
  if (!output) return r.Fail(&root, "params", "the op has no output tensor");
  for (const auto& [tensor, expr] : facts->extents) {
    for (const std::string& v : expr.Variables()) {
      if (sizes.count(v) > 0) continue;
      return r.Fail(&root, "params", "the extent of " + tensor + " (\"" + expr.text() +
                                         "\") names '" + v + "', which is not a size parameter");
    }
  }
}

void ReadShapes(SpecReader& r, const toml::table& root, OpSpec* op, const ParamFacts& facts,
                const SpecLoadOptions& options) {
  op->check_shape = MakeShapeCheck(*op, facts, options);
  const auto tables = r.Tables(root, "shapes", true);
  std::set<std::string> labels;
  for (size_t i = 0; i < tables.size() && r.ok(); ++i) {
    const toml::table& t = *tables[i];
    const std::string where = "shapes[" + std::to_string(i) + "]";
    Shape shape;
    shape.label = r.String(t, where, "label", true).value_or("");
    shape.perf = r.Bool(t, where, "perf").value_or(false);
    if (!r.ok()) return;
    if (!labels.insert(shape.label).second) {
      return r.Fail(t.get("label"), where + ".label", "duplicate label '" + shape.label + "'");
    }
    std::set<std::string> allowed = {"label", "perf"};
    for (const Param& p : op->params) {
      if (p.IsTensor()) continue;
      allowed.insert(p.name);
      if (p.kind == ParamKind::kSize) {
        const auto v = r.Integer(t, where, p.name.c_str(), true);
        if (v && *v < 0) r.Fail(t.get(p.name), where + "." + p.name, "must not be negative");
        if (v) shape.sizes[p.name] = *v;
      } else {
        auto d = facts.scalar_defaults.find(p.name);
        const auto v = r.Number(t, where, p.name.c_str(), d == facts.scalar_defaults.end());
        if (v) shape.scalars[p.name] = static_cast<float>(*v);
        else if (d != facts.scalar_defaults.end()) shape.scalars[p.name] = d->second;
      }
    }
    r.OnlyKeys(t, where, allowed);
    if (!r.ok()) return;
    if (Status fits = op->check_shape(shape); !fits.ok()) {
      return r.Fail(&t, where + " ('" + shape.label + "')", fits.message());
    }
    op->shapes.push_back(std::move(shape));
  }
  if (!r.ok()) return;
  const auto perf = std::count_if(op->shapes.begin(), op->shapes.end(),
                                  [](const Shape& s) { return s.perf; });
  if (perf != 1) {
    return r.Fail(&root, "shapes", "exactly one shape must have perf = true (found " +
                                       std::to_string(perf) + ")");
  }
  if (op->shapes.size() < 2) {
    r.Fail(&root, "shapes", "list at least one shape to check numbers on besides the perf shape");
  }
}

}  // namespace cannbot::ops::spec_file
