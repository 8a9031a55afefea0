#include "cannbot/ops/spec_values.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "cannbot/ops/dtype_values.h"
#include "cannbot/util/expr.h"

namespace cannbot::ops {

std::string FormatBytes(int64_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(text, sizeof(text), "%.1f GiB", b / (1 << 30));
  else if (b >= 1024.0 * 1024) std::snprintf(text, sizeof(text), "%.1f MiB", b / (1 << 20));
  else std::snprintf(text, sizeof(text), "%lld bytes", static_cast<long long>(bytes));
  return text;
}

namespace spec_file {
namespace {

constexpr double kDefaultEdgeFraction = 0.01;

// A named edge value of `dtype`; nullopt for a name that does not apply.
std::optional<double> NamedEdge(const std::string& name, DType dtype, bool nonfinite,
                                std::string* why) {
  const DTypeLimits limits = Limits(dtype);
  const bool floating = DTypeIsFloat(dtype);
  const std::map<std::string, double> common = {
      {"zero", 0.0}, {"one", 1.0}, {"minus_one", -1.0}, {"max", limits.max},
      {"min", limits.lowest}, {"large", floating ? limits.max / 16 : limits.max / 2}};
  if (auto it = common.find(name); it != common.end()) return it->second;
  if (floating) {
    if (name == "negative_zero") return -0.0;
    if (name == "min_normal") return limits.min_normal;
    if (name == "subnormal") return limits.min_subnormal * 3;
    if (name == "nan" || name == "inf" || name == "-inf") {
      if (!nonfinite) {
        *why = "'" + name + "' is allowed only when the op defines its outputs for non-finite "
               "inputs (nonfinite = true)";
        return std::nullopt;
      }
      if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
      return name == "inf" ? INFINITY : -INFINITY;
    }
  }
  *why = "unknown edge value '" + name + "' for " + DTypeName(dtype) +
         " (known: zero, one, minus_one, max, min, large" +
         (floating ? ", negative_zero, min_normal, subnormal, nan, inf, -inf)" : ")");
  return std::nullopt;
}

Distribution DefaultDistribution(DType dtype) {
  if (DTypeIsFloat(dtype)) return Distribution::Uniform(-1.0, 1.0);
  Distribution d;
  d.kind = Distribution::Kind::kInteger;
  d.a = dtype == DType::kU8 ? 0 : -8;
  d.b = dtype == DType::kU8 ? 16 : 8;
  return d;
}

// Values a distribution draws must be values of the tensor's dtype: a normal(0, 1e6) half
// tensor would be full of infinities the op never promised to handle.
void CheckFitsDType(SpecReader& r, const toml::table& t, const std::string& where, DType dtype,
                    const Distribution& d) {
  const DTypeLimits limits = Limits(dtype);
  double low = d.a, high = d.b;
  if (d.kind == Distribution::Kind::kNormal) {
    low = d.a - 8 * d.b;  // beyond 8 standard deviations nothing is ever drawn
    high = d.a + 8 * d.b;
  }
  if (d.kind == Distribution::Kind::kProbabilityRows) return;
  if (low >= limits.lowest && high <= limits.max) return;
  char text[160];
  std::snprintf(text, sizeof(text), "draws values in [%g, %g], beyond %s's range [%g, %g]", low,
                high, DTypeName(dtype), limits.lowest, limits.max);
  r.Fail(&t, where, text);
}

void ReadKind(SpecReader& r, const toml::table& t, const std::string& where, const Param& p,
              const OpSpec& op, Distribution* d) {
  const std::string kind = r.String(t, where, "distribution", true).value_or("");
  if (!r.ok()) return;
  auto number = [&](const char* key, double fallback) {
    return r.Number(t, where, key, false).value_or(fallback);
  };
  if (kind == "uniform" || kind == "positive") {
    d->kind = Distribution::Kind::kUniform;
    d->a = number("low", kind == "positive" ? 1e-3 : -1.0);
    d->b = number("high", 1.0);
    if (kind == "positive" && d->a <= 0) r.Fail(&t, where + ".low", "must be above 0 for positive");
  } else if (kind == "normal") {
    d->kind = Distribution::Kind::kNormal;
    d->a = number("mean", 0.0);
    d->b = number("stddev", 1.0);
    if (d->b <= 0) r.Fail(&t, where + ".stddev", "must be above 0");
  } else if (kind == "integer") {
    d->kind = Distribution::Kind::kInteger;
    d->a = number("low", DTypeIsFloat(p.dtype) ? -8 : DefaultDistribution(p.dtype).a);
    d->b = number("high", DTypeIsFloat(p.dtype) ? 8 : DefaultDistribution(p.dtype).b);
  } else if (kind == "probability_rows") {
    d->kind = Distribution::Kind::kProbabilityRows;
    const std::string row = r.String(t, where, "row", true).value_or("");
    if (!r.ok()) return;
    auto expr = util::Expr::Parse(row);
    if (!expr.ok()) return r.Fail(t.get("row"), where + ".row", expr.status().message());
    for (const std::string& v : expr->Variables()) {
      bool is_size = false;
      for (const Param& q : op.params) is_size = is_size || (q.kind == ParamKind::kSize && q.name == v);
      if (!is_size) return r.Fail(t.get("row"), where + ".row", "'" + v + "' is not a size parameter");
    }
    d->row_elements = [e = *expr](const Shape& s) -> int64_t {
      auto n = e.EvaluateInteger(s.sizes);
      return n.ok() ? *n : 0;  // 0: the whole tensor is one row
    };
  } else {
    return r.Fail(t.get("distribution"), where + ".distribution",
                  "must be one of: uniform, positive, normal, integer, probability_rows (got \"" +
                      kind + "\")");
  }
  if (r.ok() && (kind == "uniform" || kind == "positive" || kind == "integer") && !(d->a < d->b)) {
    r.Fail(&t, where, "low must be below high");
  }
  if (r.ok() && !DTypeIsFloat(p.dtype) && d->kind != Distribution::Kind::kInteger) {
    r.Fail(t.get("distribution"), where + ".distribution",
           std::string(DTypeName(p.dtype)) + " tensors take distribution = \"integer\"");
  }
  if (r.ok() && d->kind == Distribution::Kind::kInteger &&
      (std::floor(d->a) != d->a || std::floor(d->b) != d->b)) {
    r.Fail(&t, where, "an integer distribution's low and high are whole numbers");
  }
  if (r.ok()) CheckFitsDType(r, t, where, p.dtype, *d);
}

void ReadEdges(SpecReader& r, const toml::table& t, const std::string& where, const Param& p,
               bool nonfinite, Distribution* d) {
  const toml::node* node = t.get("edges");
  if (node == nullptr) return;
  const toml::array* edges = node->as_array();
  if (edges == nullptr) return r.Fail(node, where + ".edges", "must be an array");
  for (size_t i = 0; i < edges->size(); ++i) {
    const toml::node* e = edges->get(i);
    const std::string field = where + ".edges[" + std::to_string(i) + "]";
    if (e->is_number()) {
      const double v = e->is_integer() ? static_cast<double>(*e->value<int64_t>())
                                       : *e->value<double>();
      // A number beyond the dtype's range would arrive as an infinity the op never promised
      // to handle (a spec with `dtypes` meets this in its 16-bit variants).
      const DTypeLimits limits = Limits(p.dtype);
      if (std::isfinite(v) && (v > limits.max || v < limits.lowest)) {
        char text[200];
        std::snprintf(text, sizeof(text),
                      "%g is beyond %s's range [%g, %g]: name the extreme instead (\"max\", "
                      "\"min\", \"large\")", v, DTypeName(p.dtype), limits.lowest, limits.max);
        return r.Fail(e, field, text);
      }
      d->edge_values.push_back(v);
      continue;
    }
    if (!e->is_string()) return r.Fail(e, field, "must be a number or a name");
    std::string why;
    const auto v = NamedEdge(*e->value<std::string>(), p.dtype, nonfinite, &why);
    if (!v) return r.Fail(e, field, why);
    d->edge_values.push_back(*v);
  }
  d->edge_fraction = r.Number(t, where, "edge_fraction", false).value_or(kDefaultEdgeFraction);
  if (d->edge_fraction < 0 || d->edge_fraction > 1) {
    r.Fail(t.get("edge_fraction"), where + ".edge_fraction", "must be within [0, 1]");
  }
}

}  // namespace

namespace {

const std::set<std::string> kDistributionKeys = {
    "distribution", "low", "high", "mean", "stddev", "row", "edges", "edge_fraction"};

// One [inputs.NAME] table (or one of its per-shape replacements).
Distribution ReadDistribution(SpecReader& r, const toml::table& t, const std::string& where,
                              const Param& param, const OpSpec& op, bool nonfinite) {
  Distribution d;
  ReadKind(r, t, where, param, op, &d);
  ReadEdges(r, t, where, param, nonfinite, &d);
  return d;
}

// [inputs.NAME.shapes.LABEL]: the distribution of NAME on one listed shape.
void ReadShapeInputs(SpecReader& r, const toml::table& t, const std::string& where,
                     const Param& param, bool nonfinite, OpSpec* op) {
  const toml::table* shapes = r.Table(t, where, "shapes", false);
  if (shapes == nullptr) return;
  for (const auto& [key, node] : *shapes) {
    const std::string label(key.str());
    const std::string field = where + ".shapes." + label;
    bool known = false;
    for (const Shape& s : op->shapes) known = known || s.label == label;
    if (!known) return r.Fail(&node, field, "no shape is labelled '" + label + "'");
    if (!node.is_table()) return r.Fail(&node, field, "must be a table");
    r.OnlyKeys(*node.as_table(), field, kDistributionKeys);
    op->input_overrides[label][param.name] =
        ReadDistribution(r, *node.as_table(), field, param, *op, nonfinite);
  }
}

}  // namespace

void ReadInputs(SpecReader& r, const toml::table& root, bool nonfinite, OpSpec* op) {
  const toml::table* inputs = r.Table(root, "", "inputs", false);
  const Shape& perf = op->PerfShape();
  if (inputs != nullptr) {
    for (const auto& [key, node] : *inputs) {
      const std::string name(key.str());
      const Param* param = nullptr;
      for (const Param* p : op->ParamsOfKind(ParamKind::kInput)) param = p->name == name ? p : param;
      if (param == nullptr) return r.Fail(&node, "inputs." + name, "is not an input tensor of the op");
      if (!node.is_table()) return r.Fail(&node, "inputs." + name, "must be a table");
      const toml::table& t = *node.as_table();
      const std::string where = "inputs." + name;
      std::set<std::string> allowed = kDistributionKeys;
      allowed.insert({"edges_in_perf", "shapes"});
      r.OnlyKeys(t, where, allowed);
      Distribution d = ReadDistribution(r, t, where, *param, *op, nonfinite);
      if (!r.ok()) return;
      const bool perf_override = op->input_overrides[perf.label].count(name) > 0;
      if (!d.edge_values.empty() && !r.Bool(t, where, "edges_in_perf").value_or(false) &&
          !perf_override) {
        Distribution plain = d;  // edge values would time the slow paths, not the kernel
        plain.edge_values.clear();
        op->input_overrides[perf.label][name] = plain;
      }
      ReadShapeInputs(r, t, where, *param, nonfinite, op);
      op->inputs[name] = std::move(d);
    }
  }
  for (auto it = op->input_overrides.begin(); it != op->input_overrides.end();) {
    it = it->second.empty() ? op->input_overrides.erase(it) : std::next(it);
  }
  for (const Param* p : op->ParamsOfKind(ParamKind::kInput)) {
    if (op->inputs.count(p->name) == 0) op->inputs[p->name] = DefaultDistribution(p->dtype);
  }
}

namespace {

// A tolerance for one dtype: fixed values, atol/rtol expressions of the shape, and per-shape
// replacements.
struct ToleranceRule {
  Tolerance base;
  std::optional<util::Expr> atol;
  std::optional<util::Expr> rtol;
  std::map<std::string, Tolerance> by_shape;

  Tolerance For(const Shape& shape) const {
    if (auto it = by_shape.find(shape.label); it != by_shape.end()) return it->second;
    Tolerance t = base;
    const std::map<std::string, double> values = shape.Values();
    // Every listed shape was checked at load; a random one that fails keeps the fixed value.
    if (atol) {
      if (auto v = atol->EvaluateReal(values); v.ok()) t.atol = *v;
    }
    if (rtol) {
      if (auto v = rtol->EvaluateReal(values); v.ok()) t.rtol = *v;
    }
    return t;
  }
};

// A number, or an expression of the sizes and scalars (checked on every listed shape).
void ReadBound(SpecReader& r, const toml::table& table, const std::string& where,
               const char* key, const OpSpec& op, double* value,
               std::optional<util::Expr>* expr) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return;
  if (!node->is_string()) {
    if (const auto v = r.Number(table, where, key, true)) *value = *v;
    *expr = std::nullopt;
    return;
  }
  auto parsed = util::Expr::Parse(*node->value<std::string>());
  if (!parsed.ok()) return r.Fail(node, SpecReader::Field(where, key), parsed.status().message());
  for (const Shape& s : op.shapes) {
    auto v = parsed->EvaluateReal(s.Values());
    if (!v.ok() || *v < 0) {
      return r.Fail(node, SpecReader::Field(where, key),
                    "on shape '" + s.label + "': " + (v.ok() ? "negative" : v.status().message()));
    }
  }
  *expr = *parsed;
}

const std::set<std::string> kToleranceKeys = {"standard", "exact", "atol", "rtol"};

// Applies one tolerance table's keys to `rule`.
void ReadToleranceTable(SpecReader& r, const toml::table& table, const std::string& where,
                        DType dtype, const OpSpec& op, ToleranceRule* rule) {
  if (const auto s = r.String(table, where, "standard", false)) {
    if (*s != "cann") r.Fail(table.get("standard"), where + ".standard", "must be \"cann\"");
    *rule = ToleranceRule{Tolerance::Cann(dtype), std::nullopt, std::nullopt, rule->by_shape};
  }
  if (r.Bool(table, where, "exact").value_or(false)) {
    *rule = ToleranceRule{Tolerance::Exact(), std::nullopt, std::nullopt, rule->by_shape};
  }
  if (table.contains("atol") || table.contains("rtol")) {
    Tolerance t{0.0, 0.0};
    std::optional<util::Expr> atol, rtol;
    ReadBound(r, table, where, "atol", op, &t.atol, &atol);
    ReadBound(r, table, where, "rtol", op, &t.rtol, &rtol);
    if (t.atol < 0 || t.rtol < 0) r.Fail(&table, where, "atol and rtol must not be negative");
    *rule = ToleranceRule{t, atol, rtol, rule->by_shape};
  }
}

// [tolerance.shapes.LABEL] tables: a fixed tolerance for one listed shape.
void ReadShapeTolerances(SpecReader& r, const toml::table& table, const std::string& where,
                         DType dtype, const OpSpec& op, ToleranceRule* rule) {
  const toml::table* shapes = r.Table(table, where, "shapes", false);
  if (shapes == nullptr) return;
  for (const auto& [key, node] : *shapes) {
    const std::string label(key.str());
    const std::string field = where + ".shapes." + label;
    const Shape* shape = nullptr;
    for (const Shape& s : op.shapes) shape = s.label == label ? &s : shape;
    if (shape == nullptr) return r.Fail(&node, field, "no shape is labelled '" + label + "'");
    if (!node.is_table()) return r.Fail(&node, field, "must be a table");
    r.OnlyKeys(*node.as_table(), field, kToleranceKeys);
    ToleranceRule one = *rule;
    one.by_shape.clear();
    ReadToleranceTable(r, *node.as_table(), field, dtype, op, &one);
    rule->by_shape[label] = one.For(*shape);
  }
}

}  // namespace

void ReadTolerance(SpecReader& r, const toml::table& root, OpSpec* op) {
  const toml::table* t = r.Table(root, "", "tolerance", false);
  std::set<DType> output_dtypes;
  for (const Param* p : op->ParamsOfKind(ParamKind::kOutput)) output_dtypes.insert(p->dtype);
  std::set<std::string> allowed = kToleranceKeys;
  allowed.insert("shapes");
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8, DType::kU8, DType::kI32,
                  DType::kI64}) {
    allowed.insert(DTypeName(d));
  }
  if (t != nullptr) r.OnlyKeys(*t, "tolerance", allowed);
  for (DType dtype : output_dtypes) {
    ToleranceRule rule;
    rule.base = DTypeIsFloat(dtype) ? Tolerance::Cann(dtype) : Tolerance::Exact();
    if (t != nullptr) {
      ReadToleranceTable(r, *t, "tolerance", dtype, *op, &rule);
      ReadShapeTolerances(r, *t, "tolerance", dtype, *op, &rule);
      const std::string own_where = std::string("tolerance.") + DTypeName(dtype);
      if (const toml::table* own = r.Table(*t, "tolerance", DTypeName(dtype), false)) {
        std::set<std::string> own_keys = kToleranceKeys;
        own_keys.insert("shapes");
        r.OnlyKeys(*own, own_where, own_keys);
        ReadToleranceTable(r, *own, own_where, dtype, *op, &rule);
        ReadShapeTolerances(r, *own, own_where, dtype, *op, &rule);
      }
    }
    op->tolerance_by_dtype[dtype] = [rule](const Shape& s) { return rule.For(s); };
  }
  const DType first = op->ParamsOfKind(ParamKind::kOutput).front()->dtype;
  op->tolerance = op->tolerance_by_dtype[first];
}

}  // namespace spec_file
}  // namespace cannbot::ops
