#include "cannbot/page/jobs_index.h"

#include <ctime>

#include "cannbot/page/html.h"

namespace cannbot::page {
namespace {

using Json = nlohmann::json;

std::string When(const Json& seconds) {
  if (!seconds.is_number()) return "-";
  const std::time_t t = static_cast<std::time_t>(seconds.get<double>());
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &utc);
  return text;
}

std::string Option(const std::string& value, const std::string& selected) {
  return "<option value=\"" + Escape(value) + "\"" + (value == selected ? " selected" : "") +
         ">" + Escape(value.empty() ? "any" : value) + "</option>";
}

}  // namespace

std::string RenderJobsIndex(const std::vector<Json>& jobs, const JobsFilter& filter,
                            const std::vector<std::string>& ops) {
  std::string html = PageHead("cannbot: jobs") + "<h1>cannbot jobs</h1>\n";
  html += "<form class=\"filters\" method=\"get\" action=\"/\">op <select name=\"op\">" +
          Option("", filter.op);
  for (const std::string& op : ops) html += Option(op, filter.op);
  html += "</select> status <select name=\"status\">" + Option("", filter.status);
  for (const char* s : {"queued", "running", "succeeded", "failed", "cancelled"}) {
    html += Option(s, filter.status);
  }
  html += "</select> <button type=\"submit\">show</button></form>\n";
  html += "<table id=\"jobs\"><thead><tr><th>job</th><th>op</th><th>status</th><th>found</th>"
          "<th class=\"num\">speedup</th><th>created (UTC)</th></tr></thead><tbody>\n";
  int shown = 0;
  for (const Json& job : jobs) {
    const std::string op = job.value("op", "");
    if (!filter.op.empty() && op != filter.op) continue;
    const std::string id = job.value("job_id", "");
    const std::string status = job.value("status", "");
    html += "<tr><td><a href=\"/jobs/" + Escape(id) + "\">" + Escape(id) + "</a></td><td>" +
            Escape(op) + "</td><td><span class=\"badge " + Escape(status) + "\">" +
            Escape(status) + "</span></td><td>" + (job.value("found", false) ? "yes" : "no") +
            "</td><td class=\"num\">" + Number(job.value("speedup", Json()), "%.2fx") +
            "</td><td>" + When(job.value("created_at", Json())) + "</td></tr>\n";
    ++shown;
  }
  html += "</tbody></table>\n";
  if (shown == 0) html += "<p class=\"muted\">No job matches.</p>\n";
  return html + PageFoot();
}

}  // namespace cannbot::page
