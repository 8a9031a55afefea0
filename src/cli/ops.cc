// `cannbot ops`: the op registry (the kernel contract: the built-in ops and those of
// --ops-dir), as a table or one op in full.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ops/registry.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct OpsFlags {
  std::string show;
  bool json = false;
};

void PrintReference(const ops::OpSpec& op) {
  switch (op.reference_kind) {
    case ops::ReferenceKind::kBuiltIn:
      std::printf("\nReference kernel (built-in, trusted; the default perf baseline):\n\n%s\n",
                  op.reference_source.c_str());
      return;
    case ops::ReferenceKind::kSource:
      std::printf("\nReference %s (untrusted: sandboxed in its own process; the default perf "
                  "baseline):\n\n%s\n",
                  op.reference_file.c_str(), op.reference_source.c_str());
      return;
    case ops::ReferenceKind::kBaseline:
      std::printf("\nReference: the baseline kernel (differential mode: a candidate must "
                  "reproduce the numbers of the kernel it replaces; give one with --baseline)\n");
      return;
  }
}

void PrintOp(const ops::OpSpec& op) {
  std::printf("%s: %s\n\n  %s;\n\n%s\n\n", op.name.c_str(), op.summary.c_str(),
              op.CSignature().c_str(), op.semantics.c_str());
  std::printf("From: %s; family: %s\n\nParameters:\n", op.origin.c_str(), op.family.c_str());
  for (const ops::Param& p : op.params) {
    std::printf("  %-10s %s\n", p.name.c_str(), p.CType().c_str());
  }
  std::printf("\nShapes:\n  %-10s %-50s %s\n", "label", "sizes", "work");
  for (const ops::Shape& s : op.shapes) {
    std::printf("  %-10s %-50s %.3g MFLOP, %.3g MB%s\n", s.label.c_str(), s.Describe().c_str(),
                op.flops(s) / 1e6, op.Bytes(s) / 1e6, s.perf ? "  (perf)" : "");
  }
  if (op.random_shape) std::printf("  and a random case per run, within the sizes' bounds\n");
  std::printf("\nTolerance:\n");
  if (op.tolerance_by_dtype.empty()) {
    for (const ops::Shape& s : op.shapes) {
      std::printf("  %-10s %s\n", s.label.c_str(), op.tolerance(s).Describe().c_str());
    }
  }
  for (const auto& [dtype, t] : op.tolerance_by_dtype) {
    for (const ops::Shape& s : op.shapes) {
      std::printf("  %-10s %-10s %s\n", ops::DTypeName(dtype), s.label.c_str(),
                  t(s).Describe().c_str());
    }
  }
  std::printf("\nInputs:\n");
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    std::printf("  %-10s %s\n", p->name.c_str(), op.inputs.at(p->name).Describe().c_str());
  }
  for (const auto& [label, overrides] : op.input_overrides) {
    for (const auto& [name, d] : overrides) {
      std::printf("  %-10s %s (case '%s')\n", name.c_str(), d.Describe().c_str(),
                  label.c_str());
    }
  }
  PrintReference(op);
}

// An op's element type as the table shows it: its first tensor's dtype.
const char* DTypeOf(const ops::OpSpec& op) {
  for (const ops::Param& p : op.params) {
    if (p.IsTensor()) return ops::DTypeName(p.dtype);
  }
  return "-";
}

// One row per op, with the dtypes it comes in (one kernel symbol per dtype).
void PrintTable(const ops::Registry& registry) {
  std::map<std::string, std::vector<const ops::OpSpec*>> variants;
  std::vector<std::string> order;
  for (const ops::OpSpec& op : registry.ops()) {
    auto& list = variants[op.BaseName()];
    if (list.empty()) order.push_back(op.BaseName());
    list.push_back(&op);
  }
  std::printf("%-18s %-13s %-22s %s\n", "op", "family", "dtypes", "signature (first dtype)");
  for (const std::string& name : order) {
    const auto& list = variants[name];
    std::string dtypes;
    for (const ops::OpSpec* v : list) dtypes += std::string(dtypes.empty() ? "" : ", ") + DTypeOf(*v);
    std::printf("%-18s %-13s %-22s %s\n", name.c_str(), list.front()->family.c_str(),
                dtypes.c_str(), list.front()->CSignature().c_str());
  }
  std::printf("\n%zu ops, %zu kernels counting dtype variants: an op in several dtypes has one "
              "symbol per dtype, its name for the first and NAME_fp16, NAME_bf16 for the others.\n"
              "`cannbot ops --show OP` prints an op's shapes, tolerances and reference.\n",
              order.size(), registry.ops().size());
}

int Run(const OpsFlags& flags, const ops::Registry& registry) {
  if (!flags.show.empty()) {
    const ops::OpSpec* op = registry.Find(flags.show);
    if (op == nullptr) return ReportError(Status::NotFound("unknown op '" + flags.show + "'"),
                                          flags.json);
    if (flags.json) {
      std::printf("%s\n", op->ToJson(true).dump(2).c_str());
    } else {
      PrintOp(*op);
    }
    return kExitOk;
  }
  if (flags.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const ops::OpSpec& op : registry.ops()) all.push_back(op.ToJson(false));
    std::printf("%s\n", all.dump(2).c_str());
    return kExitOk;
  }
  PrintTable(registry);
  return kExitOk;
}

}  // namespace

Command RegisterOps(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<OpsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "ops", "List the ops (the kernel contract): the built-ins and those of --ops-dir");
  cmd->add_option("--show", flags->show, "Print one op in full");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
