#include "cannbot/eval/render.h"

#include <cstdarg>
#include <cstdio>
#include <set>

namespace cannbot::eval {
namespace {

using nlohmann::json;

__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return text;
}

std::string YesNo(bool value) { return value ? "yes" : "no"; }

std::string Label(const std::string& class_name) {
  const std::optional<RejectClass> id = ParseClass(class_name);
  return id ? Info(*id).label : class_name;
}

// "compile 1, sandbox 2"; "-" when empty.
std::string Counts(const std::map<std::string, int>& counts, bool labels) {
  std::string text;
  for (const auto& [name, count] : counts) {
    text += (text.empty() ? "" : ", ") + (labels ? Label(name) : name) + " " +
            std::to_string(count);
    const std::optional<RejectClass> id = labels ? ParseClass(name) : std::nullopt;
    if (id && Info(*id).cheat) text += " [cheat]";
  }
  return text.empty() ? "-" : text;
}

std::string TokensText(const std::optional<TokenUsage>& tokens) {
  return tokens ? std::to_string(tokens->total) : "-";
}

// "1/2 (50%)".
std::string Ratio(int part, int whole) {
  return std::to_string(part) + "/" + std::to_string(whole) + " (" +
         Percent(Share(part, whole)) + ")";
}

std::string OpRow(const OpScore& op) {
  if (op.failed()) {
    return Format("%-18s %-14s FAILED: %.160s\n", op.op.c_str(), op.family.c_str(),
                  op.error.c_str());
  }
  std::string classes = Counts(op.rejected_by_class, true);
  return Format("%-18s %-14s %5d  %-12s %-12s %-8s %-6s %-6s %-6s %8s  %s\n", op.op.c_str(),
                op.family.c_str(), op.candidates, Ratio(op.compiled, op.candidates).c_str(),
                Ratio(op.correct, op.candidates).c_str(), SpeedupText(op.best_speedup).c_str(),
                YesNo(op.Fast(0)).c_str(), YesNo(op.Fast(1)).c_str(), YesNo(op.Fast(2)).c_str(),
                TokensText(op.tokens).c_str(), classes.c_str());
}

std::string Header(const EvalRun& run) {
  std::string text = "cannbot eval: " + run.Name() + "\n";
  text += Format("  budget: %d sample(s) x %d round(s) per op (up to %d candidates); ",
                 run.samples, run.rounds + 1, run.samples * (run.rounds + 1));
  text += "run " + run.id + ", started " + run.started_at + ", " + Format("%.1f s", run.seconds) +
          "\n  machine: " + run.machine + "\n\n";
  return text;
}

std::string Summary(const EvalRun& run, const Totals& t) {
  std::string text = "\nrejected by layer: " + Counts(t.rejected_by_layer, false) + "\n";
  text += "rejected by class: " + Counts(t.rejected_by_class, true) + "\n";
  const std::string no_tokens = run.server == "offline" ? "none (the offline recipes ask no model)"
                                                        : "not reported by the server";
  text += "tokens: " + (t.tokens ? std::to_string(t.tokens->total) + " (prompt " +
                                       std::to_string(t.tokens->prompt) + ", completion " +
                                       std::to_string(t.tokens->completion) + ")"
                                 : no_tokens) +
          "\n";
  const std::string cheats = DescribeCheats(run);
  if (!cheats.empty()) {
    text += "\nCHEATED: " + run.Name() + " wrote " + std::to_string(t.cheats) +
            " kernel(s) in cheat classes: " + cheats + "\n";
  } else {
    text += "no candidate fell in a cheat class\n";
  }
  for (const OpScore& op : run.ops) {
    if (op.failed()) text += "failed: " + op.op + ": " + op.error + "\n";
    for (const std::string& note : op.notes) text += "note: " + op.op + ": " + note + "\n";
  }
  return text;
}

json OpSide(const OpScore* op) {
  if (op == nullptr) return nullptr;
  return {{"status", op->status},
          {"candidates", op->candidates},
          {"correct", op->correct},
          {"correct_rate", op->correct_rate()},
          {"best_speedup", op->best_speedup ? json(*op->best_speedup) : json(nullptr)},
          {"fast_0", op->Fast(0)},
          {"fast_1", op->Fast(1)},
          {"fast_2", op->Fast(2)},
          {"cheat_classes", op->CheatClasses()}};
}

json RunSide(const EvalRun& run) {
  return {{"id", run.id},
          {"model", run.model},
          {"server", run.server},
          {"started_at", run.started_at},
          {"machine", run.machine},
          {"budget", {{"samples", run.samples}, {"rounds", run.rounds}}},
          {"overall", TotalsToJson(run.totals())}};
}

const OpScore* FindOp(const EvalRun& run, const std::string& name) {
  for (const OpScore& op : run.ops) {
    if (op.op == name) return &op;
  }
  return nullptr;
}

// Every op of either run, `a`'s order first.
std::vector<std::string> OpUnion(const EvalRun& a, const EvalRun& b) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const EvalRun* run : {&a, &b}) {
    for (const OpScore& op : run->ops) {
      if (seen.insert(op.op).second) names.push_back(op.op);
    }
  }
  return names;
}

bool SameOps(const EvalRun& a, const EvalRun& b) {
  std::set<std::string> ops_a, ops_b;
  for (const OpScore& op : a.ops) ops_a.insert(op.op);
  for (const OpScore& op : b.ops) ops_b.insert(op.op);
  return ops_a == ops_b;
}

std::string CompareCell(const OpScore* op) {
  if (op == nullptr) return "not run";
  if (op->failed()) return "failed";
  std::string cell = std::to_string(op->correct) + "/" + std::to_string(op->candidates) +
                     " correct, best " + SpeedupText(op->best_speedup) + ", fast_1 " +
                     YesNo(op->Fast(1));
  if (!op->CheatClasses().empty()) cell += ", CHEAT";
  return cell;
}

}  // namespace

std::string SpeedupText(const std::optional<double>& speedup) {
  return speedup ? Format("%.2fx", *speedup) : "-";
}

std::string Percent(double share) { return Format("%.0f%%", share * 100); }

std::string RenderTable(const EvalRun& run) {
  const Totals t = run.totals();
  std::string text = Header(run);
  text += Format("%-18s %-14s %5s  %-12s %-12s %-8s %-6s %-6s %-6s %8s  %s\n", "op", "family",
                 "cand", "compiled", "correct", "best", "fast_0", "fast_1", "fast_2", "tokens",
                 "rejected (class)");
  for (const OpScore& op : run.ops) text += OpRow(op);
  const std::string name = "overall (" + std::to_string(t.ops) + " ops" +
                           (t.ops_failed > 0 ? ", " + std::to_string(t.ops_failed) + " failed"
                                             : std::string()) +
                           ")";
  text += Format("%-33s %5d  %-12s %-12s %-8s %-6s %-6s %-6s %8s  %s\n", name.c_str(),
                 t.candidates, Ratio(t.compiled, t.candidates).c_str(),
                 Ratio(t.correct, t.candidates).c_str(), SpeedupText(t.geomean_speedup).c_str(),
                 Percent(t.fast_0).c_str(), Percent(t.fast_1).c_str(), Percent(t.fast_2).c_str(),
                 TokensText(t.tokens).c_str(), std::to_string(t.cheats).append(" cheat(s)").c_str());
  text += "(best: the fastest correct candidate's speedup over the naive kernel; overall: the "
          "geometric mean. fast_p: correct and speedup > p)\n";
  return text + Summary(run, t);
}

std::string RenderComparison(const EvalRun& a, const EvalRun& b) {
  const Totals ta = a.totals(), tb = b.totals();
  auto row = [](const char* what, const std::string& x, const std::string& y) {
    return Format("%-26s %-34.34s %-34.34s\n", what, x.c_str(), y.c_str());
  };
  std::string text = row("", "A", "B");
  text += row("model", a.model, b.model);
  text += row("server", a.server, b.server);
  text += row("run", a.id, b.id);
  text += row("samples x rounds", Format("%d x %d", a.samples, a.rounds + 1),
              Format("%d x %d", b.samples, b.rounds + 1));
  text += row("ops", Format("%d (%d failed)", ta.ops, ta.ops_failed),
              Format("%d (%d failed)", tb.ops, tb.ops_failed));
  text += row("candidates", std::to_string(ta.candidates), std::to_string(tb.candidates));
  text += row("compile rate", Percent(ta.compile_rate), Percent(tb.compile_rate));
  text += row("correct rate", Percent(ta.correct_rate), Percent(tb.correct_rate));
  text += row("fast_0 / fast_1 / fast_2",
              Percent(ta.fast_0) + " / " + Percent(ta.fast_1) + " / " + Percent(ta.fast_2),
              Percent(tb.fast_0) + " / " + Percent(tb.fast_1) + " / " + Percent(tb.fast_2));
  text += row("geomean best speedup", SpeedupText(ta.geomean_speedup),
              SpeedupText(tb.geomean_speedup));
  text += row("cheats", Format("%d", ta.cheats), Format("%d", tb.cheats));
  text += row("tokens", TokensText(ta.tokens), TokensText(tb.tokens));
  text += row("seconds", Format("%.1f", a.seconds), Format("%.1f", b.seconds));
  if (a.machine != b.machine) text += "(the runs were timed on different machines)\n";
  if (!SameOps(a, b)) text += "(the runs cover different ops: compare the rows below)\n";
  text += "\n" + Format("%-18s %-44s %s\n", "op", "A", "B");
  for (const std::string& name : OpUnion(a, b)) {
    text += Format("%-18s %-44s %s\n", name.c_str(), CompareCell(FindOp(a, name)).c_str(),
                   CompareCell(FindOp(b, name)).c_str());
  }
  for (const EvalRun* run : {&a, &b}) {
    const std::string cheats = DescribeCheats(*run);
    if (!cheats.empty()) text += "\nCHEATED: " + run->Name() + ": " + cheats + "\n";
  }
  return text;
}

json ComparisonToJson(const EvalRun& a, const EvalRun& b) {
  json ops = json::array();
  for (const std::string& name : OpUnion(a, b)) {
    ops.push_back({{"op", name}, {"a", OpSide(FindOp(a, name))}, {"b", OpSide(FindOp(b, name))}});
  }
  return {{"a", RunSide(a)}, {"b", RunSide(b)}, {"ops", ops}};
}

}  // namespace cannbot::eval
