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

using spec_file::IsIdentifier;
using spec_file::ParamFacts;
using spec_file::ReadParams;
using spec_file::ReadShapes;
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
