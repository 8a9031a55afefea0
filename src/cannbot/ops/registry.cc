#include "cannbot/ops/registry.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "cannbot/ops/builtin_references.h"
#include "cannbot/ops/op_spec_file.h"

namespace cannbot::ops {
namespace {

Status CheckShape(const OpSpec& op, const Shape& shape) {
  std::set<std::string> size_names;
  std::set<std::string> scalar_names;
  for (const Param& p : op.params) {
    if (p.kind == ParamKind::kSize) size_names.insert(p.name);
    if (p.kind == ParamKind::kScalar) scalar_names.insert(p.name);
  }
  const std::string where = op.name + " shape '" + shape.label + "'";
  std::set<std::string> given_sizes;
  for (const auto& [name, value] : shape.sizes) {
    given_sizes.insert(name);
    if (value < 0) return Status::Internal(where + ": negative size " + name);
  }
  std::set<std::string> given_scalars;
  for (const auto& entry : shape.scalars) given_scalars.insert(entry.first);
  if (given_sizes != size_names) return Status::Internal(where + ": sizes do not match params");
  if (given_scalars != scalar_names) {
    return Status::Internal(where + ": scalars do not match params");
  }
  for (const Param& p : op.params) {
    if (p.IsTensor() && p.elements(shape) < 1) {
      return Status::Internal(where + ": tensor " + p.name + " is empty");
    }
  }
  if (op.check_shape) CANNBOT_RETURN_IF_ERROR(op.check_shape(shape).WithContext(where));
  return Status::Ok();
}

Status CheckOp(const OpSpec& op) {
  if (op.name.empty()) return Status::Internal("op without a name");
  const bool built_in = op.reference_kind == ReferenceKind::kBuiltIn;
  if ((built_in && !op.reference) || !op.tolerance || !op.flops) {
    return Status::Internal(op.name + ": missing reference, tolerance or flops");
  }
  if (op.reference_kind != ReferenceKind::kBaseline && op.reference_source.empty()) {
    return Status::Internal(op.name + ": no reference source");
  }
  int perf_shapes = 0;
  for (const Shape& s : op.shapes) perf_shapes += s.perf ? 1 : 0;
  if (perf_shapes != 1) return Status::Internal(op.name + ": needs exactly one perf shape");
  // Built-ins list tiny, odd and realistic cases; a user's spec at least one (plus a random
  // case drawn for every validation).
  if (op.shapes.size() < (built_in ? 4u : 2u)) {
    return Status::Internal(op.name + ": needs more numeric shapes");
  }
  bool has_output = false;
  for (const Param& p : op.params) {
    if (p.IsTensor() && !p.elements) return Status::Internal(op.name + ": " + p.name);
    if (p.kind == ParamKind::kInput && !op.inputs.count(p.name)) {
      return Status::Internal(op.name + ": no distribution for input " + p.name);
    }
    has_output = has_output || p.kind == ParamKind::kOutput;
  }
  if (!has_output) return Status::Internal(op.name + ": no output");
  for (const Shape& s : op.shapes) CANNBOT_RETURN_IF_ERROR(CheckShape(op, s));
  return Status::Ok();
}

// cannbot's own ops: the spec files ops/*.toml, embedded at build time, with their trusted
// C++ references bound by name.
std::vector<OpSpec> BuiltInOps() {
  SpecLoadOptions options;
  options.builtin_reference = BuiltInReference;
  auto no_files = [](const std::string& name) -> Result<std::string> {
    return Status::InvalidArgument("a built-in spec names no files (" + name + ")");
  };
  std::vector<OpSpec> ops;
  for (const EmbeddedSpec& spec : EmbeddedOpSpecs()) {
    auto variants =
        ParseOpSpecVariants(std::string(spec.text), std::string(spec.path), no_files, options);
    if (!variants.ok()) {
      std::fprintf(stderr, "cannbot: built-in op spec is broken: %s\n",
                   variants.status().ToString().c_str());
      std::abort();
    }
    for (OpSpec& op : *variants) {
      op.origin = "built-in";
      op.spec_text.clear();  // every cannbot knows it: a remote job need not carry it
      ops.push_back(std::move(op));
    }
  }
  return ops;
}

}  // namespace

Registry::Registry(std::vector<OpSpec> ops) : ops_(std::move(ops)) {}

Registry Registry::BuiltIns() {
  Registry registry(BuiltInOps());
  Status s = registry.Check();
  if (!s.ok()) {
    std::fprintf(stderr, "cannbot: the built-in ops are broken: %s\n", s.ToString().c_str());
    std::abort();
  }
  return registry;
}

Status Registry::CheckNewOp(const OpSpec& op) const {
  const OpSpec* existing = Find(op.name);
  // The same file reached twice (--ops-dir and ops_dirs naming one directory) is one op.
  if (existing == nullptr || op.overrides || existing->origin == op.origin) return Status::Ok();
  return Status::InvalidArgument("op '" + op.name + "' is already defined by " +
                                 existing->origin +
                                 " (a spec that means to replace it says overrides = true)");
}

Status Registry::Add(OpSpec op) {
  CANNBOT_RETURN_IF_ERROR(CheckOp(op).WithContext(op.origin));
  CANNBOT_RETURN_IF_ERROR(CheckNewOp(op).WithContext(op.origin));
  for (OpSpec& existing : ops_) {
    if (existing.name != op.name) continue;
    existing = std::move(op);
    return Status::Ok();
  }
  ops_.push_back(std::move(op));
  return Status::Ok();
}

const OpSpec* Registry::Find(std::string_view name) const {
  for (const OpSpec& op : ops_) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  for (const OpSpec& op : ops_) names.push_back(op.name);
  return names;
}

Status Registry::Check() const {
  std::set<std::string> seen;
  for (const OpSpec& op : ops_) {
    if (!seen.insert(op.name).second) return Status::Internal("duplicate op " + op.name);
    CANNBOT_RETURN_IF_ERROR(CheckOp(op));
  }
  return Status::Ok();
}

}  // namespace cannbot::ops
