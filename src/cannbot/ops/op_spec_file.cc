#include "cannbot/ops/op_spec_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>

#include <toml++/toml.h>

#include "cannbot/ops/spec_elementwise.h"
#include "cannbot/ops/spec_reader.h"
#include "cannbot/ops/spec_shapes.h"
#include "cannbot/ops/spec_values.h"
#include "cannbot/util/expr.h"
#include "cannbot/util/fs.h"

namespace cannbot::ops {
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

using spec_file::MakeShapeCheck;
using spec_file::ParamFacts;
using spec_file::SpecReader;
using spec_file::AddRandomCase;

// Functions <cmath>, <cstdlib> and <cstring> declare extern "C": an op of such a name is a
// kernel symbol no kernel including them can define.
const std::set<std::string> kCLibraryNames = {
    "abs",   "acos",  "asin",  "atan",   "atan2", "cbrt",  "ceil",  "cos",    "cosh",  "div",
    "erf",   "erfc",  "exp",   "exp2",   "expm1", "fabs",  "floor", "fma",    "fmax",  "fmin",
    "fmod",  "free",  "hypot", "labs",   "ldexp", "lgamma", "log",  "log10",  "log1p", "log2",
    "malloc", "memcpy", "memset", "modf", "pow",  "qsort", "rand",  "remainder", "round",
    "sin",   "sinh",  "sqrt",  "tan",    "tanh",  "tgamma", "trunc", "exit",  "abort"};

const std::set<std::string> kFamilies = {"elementwise", "activation",  "binary",
                                          "reduction",   "normalization", "matmul",
                                          "convolution", "other"};

bool IsIdentifier(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void ReadParam(SpecReader& r, const toml::table& t, const std::string& where, OpSpec* op,
               ParamFacts* facts) {
  r.OnlyKeys(t, where, {"name", "kind", "dtype", "extent", "min", "max", "default"});
  const auto name = r.String(t, where, "name", true);
  const auto kind = r.String(t, where, "kind", true);
  if (!r.ok()) return;
  // Keys of another kind are mistakes, not hints: a scalar's dtype would be silently float.
  const std::map<std::string, std::set<std::string>> own_keys = {
      {"input", {"dtype", "extent"}}, {"output", {"dtype", "extent"}},
      {"size", {"min", "max"}},       {"scalar", {"default", "min", "max"}}};
  if (auto own = own_keys.find(*kind); own != own_keys.end()) {
    for (const char* key : {"dtype", "extent", "min", "max", "default"}) {
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

void ReadWork(SpecReader& r, const toml::table& root, OpSpec* op) {
  std::set<std::string> names;
  for (const Param& p : op->params) {
    if (!p.IsTensor()) names.insert(p.name);
  }
  auto read = [&](const char* key, bool required) -> std::function<double(const Shape&)> {
    const auto text = r.String(root, "", key, required);
    if (!text) return nullptr;
    auto expr = util::Expr::Parse(*text);
    if (!expr.ok()) {
      r.Fail(root.get(key), key, expr.status().message());
      return nullptr;
    }
    for (const std::string& v : expr->Variables()) {
      if (names.count(v) == 0) {
        r.Fail(root.get(key), key, "names '" + v + "', which is not a size or scalar parameter");
        return nullptr;
      }
    }
    for (const Shape& s : op->shapes) {
      auto value = expr->EvaluateReal(s.Values());
      if (!value.ok() || *value < 0) {
        r.Fail(root.get(key), key, "on shape '" + s.label + "': " +
                                       (value.ok() ? "negative" : value.status().message()));
        return nullptr;
      }
    }
    return [e = *expr](const Shape& s) {
      auto v = e.EvaluateReal(s.Values());
      return v.ok() ? *v : 0.0;  // every listed shape was checked at load
    };
  };
  op->flops = read("flops", true);
  op->bytes = read("bytes", false);
}

void ReadReference(SpecReader& r, const toml::table& root, const ReferenceLoader& load,
                   const SpecLoadOptions& options, OpSpec* op) {
  const auto reference = r.String(root, "", "reference", true);
  if (!reference) return;
  if (*reference == "baseline") {
    op->reference_kind = ReferenceKind::kBaseline;
    return;
  }
  if (*reference == "builtin") {  // trusted code in this process: cannbot's own specs only
    if (!options.builtin_reference) {
      return r.Fail(root.get("reference"), "reference",
                    "\"builtin\" is reserved for cannbot's own ops: name your reference file");
    }
    op->reference_kind = ReferenceKind::kBuiltIn;
    op->reference = options.builtin_reference(*op);
    op->reference_source = std::string(EmbeddedReferenceSource(op->name));
    if (!op->reference || op->reference_source.empty()) {
      r.Fail(root.get("reference"), "reference",
             "no built-in reference named " + op->name + " takes the spec's signature");
    }
    return;
  }
  auto text = load(*reference);
  if (!text.ok()) return r.Fail(root.get("reference"), "reference", text.status().message());
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return r.Fail(root.get("reference"), "reference", "the file " + *reference + " is empty");
  }
  op->reference_kind = ReferenceKind::kSource;
  op->reference_source = *text;
  op->reference_file = *reference;
}

}  // namespace

namespace {

// The name of a dtype variant: the first dtype listed keeps the spec's name.
std::string VariantName(const std::string& name, DType dtype) {
  switch (dtype) {
    case DType::kF32: return name + "_fp32";
    case DType::kF16: return name + "_fp16";
    case DType::kBF16: return name + "_bf16";
    default: return name + "_" + DTypeName(dtype);
  }
}

// The top-level `dtypes` list: the element types `dtype = "T"` takes, one variant each.
std::vector<DType> ReadDTypes(SpecReader& r, const toml::table& root) {
  const toml::node* node = root.get("dtypes");
  if (node == nullptr) return {};
  const toml::array* list = node->as_array();
  if (list == nullptr || list->empty()) {
    r.Fail(node, "dtypes", "must be a non-empty array of dtype names");
    return {};
  }
  std::vector<DType> dtypes;
  for (size_t i = 0; i < list->size() && r.ok(); ++i) {
    const std::string field = "dtypes[" + std::to_string(i) + "]";
    const auto name = list->get(i)->value<std::string>();
    if (!name) return r.Fail(list->get(i), field, "must be a dtype name"), dtypes;
    auto dtype = ParseDType(*name, field);
    if (!dtype.ok()) return r.Fail(list->get(i), field, dtype.status().message()), dtypes;
    if (std::find(dtypes.begin(), dtypes.end(), *dtype) != dtypes.end()) {
      return r.Fail(list->get(i), field, "lists " + *name + " twice"), dtypes;
    }
    dtypes.push_back(*dtype);
  }
  return dtypes;
}

// One variant of a spec (`type_parameter` unset for a spec without `dtypes`).
Result<OpSpec> ParseVariant(const toml::table& root, const std::string& text,
                            const std::string& path, const ReferenceLoader& load_reference,
                            const SpecLoadOptions& options, std::optional<DType> type_parameter) {
  SpecReader r(path);
  OpSpec op;
  op.origin = path;
  op.spec_text = text;
  op.name = r.String(root, "", "name", true).value_or("");
  op.summary = r.String(root, "", "summary", true).value_or("");
  op.semantics = r.String(root, "", "semantics", false).value_or(op.summary);
  op.family = r.String(root, "", "family", false).value_or("other");
  op.overrides = r.Bool(root, "", "overrides").value_or(false);
  const bool nonfinite = r.Bool(root, "", "nonfinite").value_or(false);
  if (r.ok() && !IsIdentifier(op.name)) r.Fail(root.get("name"), "name", "must be a C identifier");
  if (r.ok() && kCLibraryNames.count(op.name) > 0) {
    r.Fail(root.get("name"), "name",
           "'" + op.name + "' is a C library function: a kernel defining extern \"C\" " + op.name +
               " could not include <cmath> or <cstdlib> (name the op e.g. " + op.name + "_op)");
  }
  if (r.ok() && kFamilies.count(op.family) == 0) {
    r.Fail(root.get("family"), "family",
           "must be one of: activation, binary, convolution, elementwise, matmul, "
           "normalization, reduction, other (got \"" + op.family + "\")");
  }
  ParamFacts facts;
  facts.type_parameter = type_parameter;
  if (r.ok()) ReadParams(r, root, &op, &facts);
  if (r.ok()) ReadShapes(r, root, &op, facts, options);
  if (r.ok()) ReadWork(r, root, &op);
  if (r.ok()) spec_file::ReadInputs(r, root, nonfinite, &op);
  if (r.ok()) spec_file::ReadTolerance(r, root, &op);
  if (r.ok()) spec_file::ReadElementwise(r, root, &op);
  if (r.ok()) spec_file::ReadReduce(r, root, &op);
  if (r.ok()) ReadReference(r, root, load_reference, options, &op);
  const bool random_case = r.Bool(root, "", "random_case").value_or(true);
  if (!r.ok()) return r.status();
  if (random_case) AddRandomCase(&op, facts, options);
  return op;
}

}  // namespace

Result<std::vector<OpSpec>> ParseOpSpecVariants(const std::string& text, const std::string& path,
                                                const ReferenceLoader& load_reference,
                                                const SpecLoadOptions& options) {
  toml::table root;
  try {  // toml++ reports syntax errors by exception: caught here, at the library's edge
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Status::InvalidArgument(path + ":" + std::to_string(e.source().begin.line) + ": " +
                                   std::string(e.description()));
  }
  SpecReader r(path);
  r.OnlyKeys(root, "", {"name", "summary", "semantics", "family", "overrides", "nonfinite",
                        "reference", "flops", "bytes", "params", "shapes", "inputs",
                        "tolerance", "random_case", "dtypes", "elementwise", "broadcast",
                        "reduce"});
  const std::vector<DType> dtypes = ReadDTypes(r, root);
  if (!r.ok()) return r.status();
  if (dtypes.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(OpSpec op,
                             ParseVariant(root, text, path, load_reference, options, std::nullopt));
    return std::vector<OpSpec>{std::move(op)};
  }
  std::vector<OpSpec> variants;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    auto op = ParseVariant(root, text, path, load_reference, options, dtypes[i]);
    if (!op.ok()) {
      return Status::InvalidArgument(op.status().message() + " (in its " +
                                     DTypeName(dtypes[i]) + " variant)");
    }
    op->variant_of = op->name;
    if (i > 0) op->name = VariantName(op->name, dtypes[i]);
    variants.push_back(std::move(op).value());
  }
  return variants;
}

Result<OpSpec> ParseOpSpec(const std::string& text, const std::string& path,
                           const ReferenceLoader& load_reference,
                           const SpecLoadOptions& options) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<OpSpec> variants,
                           ParseOpSpecVariants(text, path, load_reference, options));
  return std::move(variants.front());
}

Result<OpSpec> ParseInlineOpSpec(const std::string& text, const std::string& reference_text,
                                 const SpecLoadOptions& options, const std::string& variant) {
  auto load = [&reference_text](const std::string& name) -> Result<std::string> {
    if (reference_text.empty()) {
      return Status::InvalidArgument("the spec names the reference file " + name +
                                     ": send its text as op_reference");
    }
    return reference_text;
  };
  CANNBOT_ASSIGN_OR_RETURN(std::vector<OpSpec> variants,
                           ParseOpSpecVariants(text, "op_spec", load, options));
  std::string names;
  for (OpSpec& op : variants) {
    if (!variant.empty() && op.name != variant) {
      names += (names.empty() ? "" : ", ") + op.name;
      continue;
    }
    op.origin = "inline";
    return std::move(op);
  }
  return Status::InvalidArgument("the spec defines no op named '" + variant + "' (it defines " +
                                 names + ")");
}

Result<std::vector<OpSpec>> LoadOpSpecFileVariants(const std::string& path,
                                                   const SpecLoadOptions& options) {
  CANNBOT_ASSIGN_OR_RETURN(std::string text, ReadFile(path, 1u << 20));
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  auto load = [&dir](const std::string& name) -> Result<std::string> {
    const std::string file = (dir / name).string();
    if (!PathExists(file)) return Status::NotFound("the reference file " + file + " does not exist");
    return ReadFile(file, 1u << 20);
  };
  return ParseOpSpecVariants(text, path, load, options);
}

Result<OpSpec> LoadOpSpecFile(const std::string& path, const SpecLoadOptions& options) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<OpSpec> variants, LoadOpSpecFileVariants(path, options));
  return std::move(variants.front());
}

Result<std::vector<OpSpec>> LoadOpSpecDir(const std::string& dir, const SpecLoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::NotFound("ops directory " + dir + " does not exist or is not a directory");
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".toml") {
      files.push_back(entry.path().string());
    }
  }
  if (ec) return Status::IoError("cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<OpSpec> specs;
  for (const std::string& file : files) {
    CANNBOT_ASSIGN_OR_RETURN(std::vector<OpSpec> variants, LoadOpSpecFileVariants(file, options));
    for (OpSpec& spec : variants) specs.push_back(std::move(spec));
  }
  return specs;
}

Status AddOpsDirs(const std::vector<std::string>& dirs, Registry* registry,
                  const SpecLoadOptions& options) {
  for (const std::string& dir : dirs) {
    CANNBOT_ASSIGN_OR_RETURN(std::vector<OpSpec> specs, LoadOpSpecDir(dir, options));
    for (OpSpec& spec : specs) CANNBOT_RETURN_IF_ERROR(registry->Add(std::move(spec)));
  }
  return Status::Ok();
}

}  // namespace cannbot::ops
