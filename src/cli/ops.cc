// `cannbot ops`: the built-in op registry (the kernel contract), as a table or one op in full.
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "cannbot/ops/registry.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct OpsFlags {
  std::string show;
  bool json = false;
};

void PrintOp(const ops::OpSpec& op) {
  std::printf("%s: %s\n\n  %s;\n\n%s\n\n", op.name.c_str(), op.summary.c_str(),
              op.CSignature().c_str(), op.semantics.c_str());
  std::printf("Shapes:\n  %-10s %-50s %-9s %-9s %s\n", "label", "sizes", "atol", "rtol",
              "work");
  for (const ops::Shape& s : op.shapes) {
    ops::Tolerance t = op.tolerance(s);
    std::printf("  %-10s %-50s %-9.2g %-9.2g %.3g MFLOP, %.3g MB%s\n", s.label.c_str(),
                s.Describe().c_str(), t.atol, t.rtol, op.flops(s) / 1e6, op.Bytes(s) / 1e6,
                s.perf ? "  (perf)" : "");
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
  std::printf("\nReference kernel (trusted; the default perf baseline):\n\n%s\n",
              op.reference_source.c_str());
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
  std::printf("%-18s %s\n", "op", "signature");
  for (const ops::OpSpec& op : registry.ops()) {
    std::printf("%-18s %s\n", op.name.c_str(), op.CSignature().c_str());
  }
  std::printf("\n`cannbot ops --show OP` prints an op's shapes, tolerances and reference.\n");
  return kExitOk;
}

}  // namespace

Command RegisterOps(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<OpsFlags>();
  CLI::App* cmd = app.add_subcommand("ops", "List the built-in ops (the kernel contract)");
  cmd->add_option("--show", flags->show, "Print one op in full");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
