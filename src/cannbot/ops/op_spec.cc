#include "cannbot/ops/op_spec.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cannbot/ops/dtype_values.h"

namespace cannbot::ops {

int64_t Shape::Size(const std::string& name) const {
  auto it = sizes.find(name);
  if (it == sizes.end()) {
    std::fprintf(stderr, "cannbot: bug: shape '%s' has no size '%s'\n",
                 label.c_str(), name.c_str());
    std::abort();
  }
  return it->second;
}

float Shape::Scalar(const std::string& name) const {
  auto it = scalars.find(name);
  if (it == scalars.end()) {
    std::fprintf(stderr, "cannbot: bug: shape '%s' has no scalar '%s'\n",
                 label.c_str(), name.c_str());
    std::abort();
  }
  return it->second;
}

std::map<std::string, double> Shape::Values() const {
  std::map<std::string, double> values;
  for (const auto& [name, v] : sizes) values[name] = static_cast<double>(v);
  for (const auto& [name, v] : scalars) values[name] = v;
  return values;
}

std::string Shape::Describe() const {
  std::ostringstream out;
  const char* sep = "";
  for (const auto& [name, value] : sizes) {
    out << sep << name << '=' << value;
    sep = " ";
  }
  for (const auto& [name, value] : scalars) {
    out << sep << name << '=' << value;
    sep = " ";
  }
  return out.str();
}

std::string Param::CType() const {
  switch (kind) {
    case ParamKind::kInput: return std::string("const ") + DTypeCType(dtype) + "*";
    case ParamKind::kOutput: return std::string(DTypeCType(dtype)) + "*";
    case ParamKind::kSize: return "int64_t";
    case ParamKind::kScalar: return "float";
  }
  return "?";
}

std::string Distribution::Describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kUniform: out << "uniform[" << a << ", " << b << ")"; break;
    case Kind::kNormal: out << "normal(mean " << a << ", sd " << b << ")"; break;
    case Kind::kInteger: out << "integers in [" << a << ", " << b << "]"; break;
    case Kind::kProbabilityRows: out << "probability rows (each row sums to 1)"; break;
  }
  if (!edge_values.empty() && edge_fraction > 0) {
    out << " with " << edge_fraction * 100 << "% edge values {";
    const char* sep = "";
    for (double v : edge_values) {
      out << sep << v;
      sep = ", ";
    }
    out << "}";
  }
  return out.str();
}

std::string OpSpec::CSignature() const {
  std::string sig = "void " + name + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) sig += ", ";
    sig += params[i].CType() + " " + params[i].name;
  }
  return sig + ")";
}

Tolerance Tolerance::Cann(DType dtype) {
  Tolerance t;
  t.kind = Kind::kCann;
  switch (dtype) {
    case DType::kF16: t.threshold = std::ldexp(1.0, -10); break;
    case DType::kBF16: t.threshold = std::ldexp(1.0, -7); break;
    default: t.threshold = std::ldexp(1.0, -13); break;
  }
  // The standard's small-value domain: below this magnitude absolute error decides.
  t.atol = t.threshold * 0.5;
  t.rtol = 0;
  return t;
}

Tolerance Tolerance::Exact() {
  Tolerance t;
  t.kind = Kind::kExact;
  t.atol = 0;
  t.rtol = 0;
  return t;
}

std::string Tolerance::Describe() const {
  std::ostringstream out;
  switch (kind) {
    case Kind::kAbsRel: out << "atol " << atol << ", rtol " << rtol; break;
    case Kind::kCann:
      out << "CANN standard: mean relative error < " << threshold
          << ", max relative error < " << 10 * threshold << ", |error| <= " << atol
          << " where |expected| < " << atol;
      break;
    case Kind::kExact: out << "exact"; break;
  }
  return out.str();
}

const char* ReferenceKindName(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::kBuiltIn: return "built-in";
    case ReferenceKind::kSource: return "source";
    case ReferenceKind::kBaseline: return "baseline";
  }
  return "?";
}

Tolerance OpSpec::ToleranceFor(const Shape& shape, DType dtype) const {
  auto it = tolerance_by_dtype.find(dtype);
  if (it != tolerance_by_dtype.end()) return it->second(shape);
  return tolerance(shape);
}

const char* const kExtentFunctionsInC =
    "static inline int64_t extent_fn_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }\n"
    "static inline int64_t extent_fn_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
    "static inline int64_t extent_fn_max(int64_t a, int64_t b) { return a > b ? a : b; }\n";

std::string ExtentInC(const std::string& extent) {
  const std::string prefix = "extent_fn_";  // kExtentFunctionsInC's names
  std::string c = extent;
  for (const char* fn : {"ceil_div", "min", "max"}) {
    const std::string from = std::string(fn) + "(";
    for (size_t at = c.find(from); at != std::string::npos;) {
      const bool word_start = at == 0 || !(std::isalnum(static_cast<unsigned char>(c[at - 1])) ||
                                           c[at - 1] == '_');
      if (word_start) c.insert(at, prefix);
      at = c.find(from, at + (word_start ? prefix.size() : 0) + from.size());
    }
  }
  return "static_cast<int64_t>(" + c + ")";
}

namespace {

bool HasSixteenBitTensors(const OpSpec& op) {
  for (const Param& p : op.params) {
    if (p.IsTensor() && DTypeIsSixteenBitFloat(p.dtype)) return true;
  }
  return false;
}

// The built-in reference as a kernel of a 16-bit variant's own signature: the 16-bit tensors
// widened to float (exact), the float reference, its outputs rounded to the dtype (nearest
// even), as the in-process oracle does. The perf gate's default baseline for such a variant.
std::string WidenedReferenceKernel(const OpSpec& op) {
  std::string body, call = "cannbot_ref::" + op.BaseName() + "(";
  for (size_t i = 0; i < op.params.size(); ++i) {
    const Param& p = op.params[i];
    call += i > 0 ? ", " : "";
    if (!p.IsTensor() || !DTypeIsSixteenBitFloat(p.dtype)) {
      call += p.name;
      continue;
    }
    const std::string wide = p.name + "_as_float";
    body += "  std::vector<float> " + wide + "(" + ExtentInC(p.extent) + ");\n";
    if (p.kind == ParamKind::kInput) {
      body += "  for (int64_t i = 0; i < " + ExtentInC(p.extent) + "; ++i) " + wide +
              "[i] = static_cast<float>(" + p.name + "[i]);\n";
    }
    call += wide + ".data()";
  }
  body += "  " + call + ");\n";
  for (const Param* p : op.ParamsOfKind(ParamKind::kOutput)) {
    if (!DTypeIsSixteenBitFloat(p->dtype)) continue;
    const std::string wide = p->name + "_as_float";
    body += "  for (int64_t i = 0; i < " + ExtentInC(p->extent) + "; ++i) " + p->name + "[i] = " +
            DTypeCType(p->dtype) + "(" + wide + "[i]);\n";
  }
  return op.reference_source +
         "\n\n#include <vector>\n" + kExtentFunctionsInC + "extern \"C\" " + op.CSignature() + " {\n" + body + "}\n";
}

}  // namespace

std::string OpSpec::ReferenceAsKernel() const {
  if (reference_kind == ReferenceKind::kSource) {
    std::string call = ReferenceSymbol() + "(";
    for (size_t i = 0; i < params.size(); ++i) call += (i > 0 ? ", " : "") + params[i].name;
    return reference_source + "\n\nextern \"C\" " + CSignature() + " {\n  " + call +
           ");\n}\n";
  }
  if (HasSixteenBitTensors(*this)) return WidenedReferenceKernel(*this);
  std::string call = "cannbot_ref::" + name + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) call += ", ";
    call += params[i].name;
  }
  call += ")";
  return reference_source + "\n\nextern \"C\" " + CSignature() + " {\n  " + call + ";\n}\n";
}

double OpSpec::Bytes(const Shape& shape) const {
  return TrafficOf(shape).total();
}

Traffic OpSpec::TrafficOf(const Shape& shape) const {
  Traffic traffic;
  for (const Param& p : params) {
    if (!p.IsTensor()) continue;
    const double b = static_cast<double>(p.elements(shape)) * DTypeBytes(p.dtype);
    (p.kind == ParamKind::kInput ? traffic.read : traffic.written) += b;
  }
  if (this->bytes) {
    const double given = this->bytes(shape);
    const double tensors = traffic.total();
    const double write_share = tensors > 0 ? traffic.written / tensors : 0;
    traffic.written = given * write_share;
    traffic.read = given - traffic.written;
  }
  return traffic;
}

const Shape& OpSpec::PerfShape() const {
  for (const Shape& s : shapes) {
    if (s.perf) return s;
  }
  return shapes.back();  // the registry's self-check guarantees a perf shape exists
}

const Distribution& OpSpec::InputDistribution(const std::string& shape_label,
                                              const std::string& input) const {
  auto by_shape = input_overrides.find(shape_label);
  if (by_shape != input_overrides.end()) {
    auto it = by_shape->second.find(input);
    if (it != by_shape->second.end()) return it->second;
  }
  return inputs.at(input);
}

std::vector<const Param*> OpSpec::ParamsOfKind(ParamKind kind) const {
  std::vector<const Param*> out;
  for (const Param& p : params) {
    if (p.kind == kind) out.push_back(&p);
  }
  return out;
}

std::vector<const Param*> OpSpec::Tensors() const {
  std::vector<const Param*> tensors = ParamsOfKind(ParamKind::kInput);
  for (const Param* p : ParamsOfKind(ParamKind::kOutput)) tensors.push_back(p);
  return tensors;
}

namespace {

const char* KindName(ParamKind kind) {
  switch (kind) {
    case ParamKind::kInput: return "input";
    case ParamKind::kOutput: return "output";
    case ParamKind::kSize: return "size";
    case ParamKind::kScalar: return "scalar";
  }
  return "?";
}

}  // namespace

nlohmann::json OpSpec::ToJson(bool full) const {
  nlohmann::json out = {{"name", name}, {"summary", summary}, {"signature", CSignature()},
                        {"family", family}};
  if (!variant_of.empty()) out["variant_of"] = variant_of;
  if (!full) return out;
  if (!elementwise.empty()) out["elementwise"] = elementwise;
  if (!reduce.empty()) {
    out["reduce"] = {{"combine", reduce}};
    if (!reduce_finish.empty()) out["reduce"]["finish"] = reduce_finish;
  }
  if (!broadcast.empty()) out["broadcast"] = broadcast;
  out["semantics"] = semantics;
  nlohmann::json params_json = nlohmann::json::array();
  for (const Param& p : params) {
    nlohmann::json param = {{"name", p.name}, {"kind", KindName(p.kind)}, {"c_type", p.CType()}};
    if (p.IsTensor()) param["dtype"] = DTypeName(p.dtype);
    params_json.push_back(std::move(param));
  }
  out["params"] = params_json;
  nlohmann::json shapes_json = nlohmann::json::array();
  for (const Shape& s : shapes) {
    const Tolerance t = tolerance(s);
    shapes_json.push_back({{"label", s.label}, {"sizes", s.sizes}, {"scalars", s.scalars},
                           {"perf", s.perf}, {"atol", t.atol}, {"rtol", t.rtol},
                           {"tolerance", t.Describe()}, {"flops", flops(s)},
                           {"bytes", Bytes(s)}});
  }
  out["shapes"] = shapes_json;
  nlohmann::json inputs_json = nlohmann::json::object();
  for (const auto& [input, d] : inputs) inputs_json[input] = d.Describe();
  out["inputs"] = inputs_json;
  nlohmann::json tolerances = nlohmann::json::object();
  for (const auto& [dtype, t] : tolerance_by_dtype) {
    for (const Shape& s : shapes) tolerances[DTypeName(dtype)][s.label] = t(s).Describe();
  }
  if (!tolerances.empty()) out["tolerance_by_dtype"] = tolerances;
  out["origin"] = origin;
  out["reference"] = ReferenceKindName(reference_kind);
  if (!reference_file.empty()) out["reference_file"] = reference_file;
  out["random_case"] = static_cast<bool>(random_shape);
  out["reference_source"] = reference_source;
  return out;
}

}  // namespace cannbot::ops
