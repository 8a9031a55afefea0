#include "cannbot/page/evals_page.h"

#include "cannbot/page/html.h"

namespace cannbot::page {

std::string RenderEvalsPage(const nlohmann::json& rows) {
  std::string html = PageHead("cannbot: model evaluations") +
                     "<p><a href=\"/\">jobs</a></p>\n<h1>Model evaluations</h1>\n"
                     "<p class=\"muted\">fast_p: the share of ops with a correct kernel more than "
                     "p times as fast as the naive one (docs/eval.md).</p>\n"
                     "<table id=\"evals\"><thead><tr><th>model</th><th>server</th><th>when (UTC)"
                     "</th><th class=\"num\">ops</th><th class=\"num\">compiled</th><th class=\""
                     "num\">correct</th><th class=\"num\">fast_0</th><th class=\"num\">fast_1</th>"
                     "<th class=\"num\">fast_2</th><th>cheats</th><th class=\"num\">tokens</th>"
                     "</tr></thead><tbody>\n";
  for (const nlohmann::json& r : rows.is_array() ? rows : nlohmann::json::array()) {
    std::string cheats;
    for (const auto& c : r.value("cheat_classes", nlohmann::json::array())) {
      cheats += (cheats.empty() ? "" : ", ") + Escape(c.is_string() ? c.get<std::string>() : "");
    }
    html += "<tr><td>" + Escape(r.value("model", "")) + "</td><td>" + Escape(r.value("server", "")) +
            "</td><td>" + Escape(r.value("started_at", "")) + "</td><td class=\"num\">" +
            Number(r.value("ops", nlohmann::json()), "%.0f") + "</td><td class=\"num\">" +
            Number(r.value("compile_rate", nlohmann::json()), "%.2f") + "</td><td class=\"num\">" +
            Number(r.value("correct_rate", nlohmann::json()), "%.2f") + "</td><td class=\"num\">" +
            Number(r.value("fast_0", nlohmann::json()), "%.2f") + "</td><td class=\"num\">" +
            Number(r.value("fast_1", nlohmann::json()), "%.2f") + "</td><td class=\"num\">" +
            Number(r.value("fast_2", nlohmann::json()), "%.2f") + "</td><td>" +
            (cheats.empty() ? "none" : "<span class=\"badge failed\">" + cheats + "</span>") +
            "</td><td class=\"num\">" + Number(r.value("tokens", nlohmann::json()), "%.0f") +
            "</td></tr>\n";
  }
  html += "</tbody></table>\n";
  if (!rows.is_array() || rows.empty()) {
    html += "<p class=\"muted\">No evaluation yet: run <code>cannbot eval --llm URL --model M"
            "</code> with this daemon's store.</p>\n";
  }
  return html + PageFoot();
}

}  // namespace cannbot::page
