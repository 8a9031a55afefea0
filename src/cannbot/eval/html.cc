// The HTML view of an evaluation (render.h). One self-contained page: inline styles, no
// scripts, no external resources. Every string goes through HtmlEscape, the numbers too
// (they are ours, but one rule is easier to check than two).
#include <cstdio>

#include "cannbot/eval/render.h"
#include "cannbot/page/html.h"

namespace cannbot::eval {
namespace {

constexpr char kStyle[] = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1b1b1b; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
tr.overall td { font-weight: bold; background: #fafafa; }
.cheat { color: #a00000; font-weight: bold; }
.failed { color: #a05000; }
.ok { color: #006000; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; max-height: 30em; }
details { margin: 4px 0; }
)";

// <td>escaped text</td>, with a class when given.
std::string Cell(std::string_view text, std::string_view css = "") {
  std::string cell = css.empty() ? "<td>" : "<td class=\"" + page::Escape(css) + "\">";
  return cell + page::Escape(text) + "</td>";
}

std::string HeaderRow(std::initializer_list<std::string_view> names) {
  std::string row = "<tr>";
  for (std::string_view name : names) row += "<th>" + page::Escape(name) + "</th>";
  return row + "</tr>\n";
}

std::string ClassLabel(const std::string& name) {
  const std::optional<RejectClass> id = ParseClass(name);
  return id ? Info(*id).label : name;
}

std::string ClassList(const std::map<std::string, int>& counts) {
  std::string text;
  for (const auto& [name, count] : counts) {
    const std::optional<RejectClass> id = ParseClass(name);
    text += (text.empty() ? "" : ", ") + ClassLabel(name) + " " + std::to_string(count) +
            (id && Info(*id).cheat ? " (cheat)" : "");
  }
  return text.empty() ? "-" : text;
}

std::string YesNoCell(bool value) { return Cell(value ? "yes" : "no", value ? "ok" : ""); }

std::string OpTableRow(const OpScore& op) {
  std::string row = "<tr>" + Cell(op.op) + Cell(op.family);
  if (op.failed()) return row + "<td colspan=\"9\" class=\"failed\">failed: " +
                         page::Escape(op.error) + "</td></tr>\n";
  const bool cheated = !op.CheatClasses().empty();
  row += Cell(std::to_string(op.candidates)) +
         Cell(std::to_string(op.compiled) + " (" + Percent(op.compile_rate()) + ")") +
         Cell(std::to_string(op.correct) + " (" + Percent(op.correct_rate()) + ")") +
         Cell(SpeedupText(op.best_speedup)) + YesNoCell(op.Fast(0)) + YesNoCell(op.Fast(1)) +
         YesNoCell(op.Fast(2)) + Cell(op.tokens ? std::to_string(op.tokens->total) : "-") +
         Cell(ClassList(op.rejected_by_class), cheated ? "cheat" : "");
  return row + "</tr>\n";
}

std::string OverallRow(const Totals& t) {
  return "<tr class=\"overall\">" + Cell("overall") +
         Cell(std::to_string(t.ops) + " ops, " + std::to_string(t.ops_failed) + " failed") +
         Cell(std::to_string(t.candidates)) +
         Cell(std::to_string(t.compiled) + " (" + Percent(t.compile_rate) + ")") +
         Cell(std::to_string(t.correct) + " (" + Percent(t.correct_rate) + ")") +
         Cell(SpeedupText(t.geomean_speedup) + " geomean") + Cell(Percent(t.fast_0)) +
         Cell(Percent(t.fast_1)) + Cell(Percent(t.fast_2)) +
         Cell(t.tokens ? std::to_string(t.tokens->total) : "not reported") +
         Cell(ClassList(t.rejected_by_class), t.cheats > 0 ? "cheat" : "") + "</tr>\n";
}

std::string CheatSection(const EvalRun& run) {
  const std::vector<CheatRecord> cheats = Cheats(run);
  if (cheats.empty()) return "<p class=\"ok\">No candidate fell in a cheat class.</p>\n";
  std::string html = "<h2 class=\"cheat\">Cheated: " + page::Escape(run.Name()) + "</h2>\n<ul>\n";
  for (const CheatRecord& c : cheats) {
    html += "<li><span class=\"cheat\">" + page::Escape(ClassLabel(c.reject_class)) + "</span> (" +
            page::Escape(c.op) + ", round " + std::to_string(c.round) + ")" +
            (c.detail.empty() ? "" : ": " + page::Escape(c.detail)) + "</li>\n";
  }
  return html + "</ul>\n";
}

std::string AttemptDetails(const OpScore& op) {
  std::string html = "<h3>" + page::Escape(op.op) + "</h3>\n";
  if (op.failed()) return html + "<p class=\"failed\">failed: " + page::Escape(op.error) + "</p>\n";
  for (const std::string& note : op.notes) html += "<p>" + page::Escape(note) + "</p>\n";
  if (op.attempts.empty()) return html + "<p>no candidates</p>\n";
  html += "<table>\n" + HeaderRow({"round", "outcome", "layer", "class", "speedup", "reason"});
  for (const CandidateScore& c : op.attempts) {
    const std::string klass = c.reject_class.empty() ? "-" : ClassLabel(c.reject_class) +
                                                                 (c.detail.empty() ? "" : ": " + c.detail);
    html += "<tr>" + Cell(std::to_string(c.round)) + Cell(c.outcome) +
            Cell(c.layer.empty() ? "-" : c.layer) + Cell(klass, c.cheat ? "cheat" : "") +
            Cell(SpeedupText(c.speedup)) + Cell(c.reason) + "</tr>\n";
  }
  html += "</table>\n";
  for (size_t i = 0; i < op.attempts.size(); ++i) {
    const CandidateScore& c = op.attempts[i];
    if (c.code.empty()) continue;
    html += "<details><summary>candidate " + std::to_string(i + 1) + " (round " +
            std::to_string(c.round) + ", " + page::Escape(c.outcome) + ")</summary><pre><code>" +
            page::Escape(c.code) + "</code></pre></details>\n";
  }
  return html;
}

}  // namespace


std::string RenderHtml(const EvalRun& run) {
  const Totals t = run.totals();
  char seconds[32];
  std::snprintf(seconds, sizeof(seconds), "%.1f s", run.seconds);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>cannbot eval: " + page::Escape(run.Name()) + "</title>\n<style>" + kStyle +
      "</style>\n</head>\n<body>\n<h1>cannbot eval: " + page::Escape(run.Name()) + "</h1>\n";
  html += "<p>Run " + page::Escape(run.id) + ", started " + page::Escape(run.started_at) + ", " +
          page::Escape(seconds) + ", on " + page::Escape(run.machine) + ". Budget: " +
          std::to_string(run.samples) + " sample(s) &times; " + std::to_string(run.rounds + 1) +
          " round(s) per op.</p>\n";
  html += "<table>\n" + HeaderRow({"op", "family", "candidates", "compiled", "correct",
                                   "best speedup", "fast_0", "fast_1", "fast_2", "tokens",
                                   "rejected (class)"});
  for (const OpScore& op : run.ops) html += OpTableRow(op);
  html += OverallRow(t) + "</table>\n";
  html += "<p>fast_p: the share of ops with a correct candidate whose speedup over the naive "
          "kernel is greater than p. Correct: through the numeric layer with nothing found "
          "wrong in the timed runs.</p>\n";
  html += CheatSection(run);
  html += "<h2>Candidates</h2>\n";
  for (const OpScore& op : run.ops) html += AttemptDetails(op);
  return html + "</body>\n</html>\n";
}

}  // namespace cannbot::eval
