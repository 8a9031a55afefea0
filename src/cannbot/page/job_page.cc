#include "cannbot/page/job_page.h"

#include <algorithm>

#include "cannbot/page/code_view.h"
#include "cannbot/page/html.h"
#include "cannbot/page/roofline_svg.h"

namespace cannbot::page {
namespace {

using Json = nlohmann::json;

std::string Text(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return "";
  return object[key].get<std::string>();
}

const Json& Field(const Json& object, const char* key) {
  static const Json kNull;
  return object.is_object() && object.contains(key) ? object[key] : kNull;
}

std::string Badge(const std::string& text) {
  return "<span class=\"badge " + Escape(text) + "\">" + Escape(text) + "</span>";
}

// One timeline row from a report attempt (with its verdict) or a job's attempt summary.
struct Row {
  std::string round, origin, outcome, layer, speedup, detail;
};

Row RowOf(const Json& a) {
  Row row{Number(Field(a, "round"), "%.0f"), Text(a, "origin"), Text(a, "outcome"),
          Text(a, "layer"), Number(Field(a, "speedup"), "%.2fx"), Text(a, "detail")};
  const Json& verdict = Field(a, "verdict");
  if (verdict.is_object()) {
    row.layer = Text(verdict, "verdict") == "accepted" ? "accepted" : Text(verdict, "layer");
    const Json& perf = Field(verdict, "perf");
    if (perf.is_object() && Field(perf, "rounds").is_number() && perf["rounds"].get<int>() > 0) {
      row.speedup = Number(perf["speedup"], "%.2fx");
    }
  }
  return row;
}

std::string Timeline(const Json& attempts) {
  std::string out =
      "<h2>Attempts</h2>\n<table id=\"timeline\"><thead><tr><th>#</th><th>round</th><th>origin"
      "</th><th>outcome</th><th>layer</th><th class=\"num\">speedup</th><th>detail</th></tr>"
      "</thead><tbody>\n";
  int index = 0;
  for (const Json& a : attempts.is_array() ? attempts : Json::array()) {
    const Row row = RowOf(a);
    out += "<tr class=\"attempt\"><td>" + std::to_string(++index) + "</td><td>" +
           Escape(row.round) + "</td><td>" + Escape(row.origin) + "</td><td>" +
           Badge(row.outcome) + "</td><td>" + Escape(row.layer) + "</td><td class=\"num\">" +
           Escape(row.speedup) + "</td><td>" + Escape(row.detail) + "</td></tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string Diagnosis(const Json& report) {
  const Json& diagnosis = Field(report, "diagnosis");
  const Json& findings = Field(diagnosis, "findings");
  std::string out = "<h2>Diagnosis</h2>\n";
  if (!findings.is_array() || findings.empty()) {
    return out + "<p class=\"muted\">No finding (" + Escape(Text(report, "profile_source")) +
           ").</p>\n";
  }
  out += "<p class=\"muted\">from " + Escape(Text(report, "profile_source")) + "</p>\n<ol>\n";
  for (const Json& f : findings) {
    out += "<li><b>" + Escape(Text(f, "title")) + "</b> " + Badge(Text(f, "severity")) + "<br>" +
           Escape(Text(f, "summary")) + "<ul>";
    for (const Json& e : Field(f, "evidence").is_array() ? f["evidence"] : Json::array()) {
      out += "<li>" + Escape(Text(e, "text")) + "</li>";
    }
    out += "</ul></li>\n";
  }
  return out + "</ol>\n";
}

// The roofline from the timed verdicts: the machine of the first, the baseline once.
std::string Roofline(const Json& report) {
  const Json& attempts = Field(report, "attempts");
  if (!attempts.is_array()) return "";
  const int best = Field(report, "best_attempt").is_number() ? report["best_attempt"].get<int>() : -1;
  Roofs roofs;
  std::vector<RooflinePoint> points;
  for (size_t i = 0; i < attempts.size(); ++i) {
    const Json& verdict = Field(attempts[i], "verdict");
    const Json& perf = Field(verdict, "perf");
    if (!perf.is_object() || Field(perf, "estimated") == true) continue;
    if (!Field(perf, "rounds").is_number() || perf["rounds"].get<int>() == 0) continue;
    auto point = [](const Json& timing, std::string label, std::string kind) {
      const double gflops = Field(timing, "gflops").is_number() ? timing["gflops"].get<double>() : 0;
      const double gbps = Field(timing, "gbps").is_number() ? timing["gbps"].get<double>() : 0;
      return RooflinePoint{std::move(label), std::move(kind), gbps > 0 ? gflops / gbps : 0, gflops};
    };
    if (points.empty()) {
      points.push_back(point(perf["baseline"], "baseline", "baseline"));
      const Json& machine = Field(verdict, "machine");
      if (machine.is_object()) {
        roofs.peak_gflops = Field(machine, "peak_gflops").is_number() ? machine["peak_gflops"].get<double>() : 0;
        // The best bandwidth the machine showed (read-only, copy or triad): each op's own
        // roofline uses the pattern it has, and none of them is above this roof.
        for (const char* key : {"stream_gbps", "copy_gbps", "read_gbps"}) {
          if (Field(machine, key).is_number()) roofs.gbps = std::max(roofs.gbps, machine[key].get<double>());
        }
        roofs.label = Text(machine, "cpu_name") + ": " + Number(machine["peak_gflops"], "%.1f") +
                      " GFLOP/s, " + Number(Json(roofs.gbps), "%.1f") + " GB/s";
      }
    }
    const bool accepted = static_cast<int>(i) == best;
    points.push_back(point(perf["candidate"],
                           "attempt " + std::to_string(i + 1) + ": " + Text(attempts[i], "origin"),
                           accepted ? "accepted" : "attempt"));
  }
  const std::string svg = RooflineSvg(roofs, points);
  if (svg.empty()) return "";
  return "<h2>Roofline</h2>\n" + svg +
         "<p class=\"muted\">grey: the kernel to optimise; green: the accepted kernel; blue: "
         "other timed attempts.</p>\n";
}

std::string BeforeAfter(const Json& report) {
  const Json& ba = Field(report, "before_after");
  if (!ba.is_object()) return "";
  const Json& ci = Field(ba, "ci95");
  const std::string interval = ci.is_array() && ci.size() == 2
                                   ? Number(ci[0], "%.2fx") + " - " + Number(ci[1], "%.2fx")
                                   : "-";
  auto row = [&](const char* name, const std::string& p) {
    const Json& fraction = Field(ba, (p + "_roofline_fraction").c_str());
    return "<tr><td>" + std::string(name) + "</td><td class=\"num\">" +
           Number(Field(ba, (p + "_ms").c_str()), "%.3f ms") + "</td><td class=\"num\">" +
           Number(Field(ba, (p + "_gbps").c_str()), "%.2f") + "</td><td class=\"num\">" +
           Number(Field(ba, (p + "_gflops").c_str()), "%.2f") + "</td><td class=\"num\">" +
           Number(fraction.is_number() ? Json(fraction.get<double>() * 100) : Json(), "%.1f%%") +
           "</td></tr>\n";
  };
  return "<h2>Before / after (" + Escape(Text(ba, "shape")) + ")</h2>\n<table id=\"before-after\">"
         "<thead><tr><th>kernel</th><th class=\"num\">time/call</th><th class=\"num\">GB/s</th>"
         "<th class=\"num\">GFLOP/s</th><th class=\"num\">roofline</th></tr></thead><tbody>\n" +
         row("before", "baseline") + row("after", "candidate") +
         "<tr><td>speedup</td><td class=\"num\" colspan=\"4\">" + Number(ba["speedup"], "%.2fx") +
         " (95% CI " + interval + ")</td></tr></tbody></table>\n";
}

// Follows the event stream while the job runs; text only ever goes in through textContent.
std::string LiveScript(const std::string& events_url) {
  return "<script type=\"application/json\" id=\"events-url\">" + ScriptJson(events_url) +
         "</script>\n<script>\n" + R"((function () {
  var url = JSON.parse(document.getElementById('events-url').textContent);
  var body = document.querySelector('#timeline tbody');
  var status = document.getElementById('status');
  var progress = document.getElementById('progress');
  var source = new EventSource(url);
  function cell(row, text) { var td = document.createElement('td'); td.textContent = text; row.appendChild(td); return td; }
  ['started', 'asking', 'validating'].forEach(function (type) {
    source.addEventListener(type, function (e) {
      var d = JSON.parse(e.data); status.textContent = 'running'; status.className = 'badge running';
      progress.textContent = d.text || type;
    });
  });
  var rendered = body.children.length;  // rows the server drew; the stream replays them too
  source.addEventListener('attempt', function (e) {
    var d = JSON.parse(e.data);
    if (typeof d.index === 'number' && d.index < rendered) return;
    var row = document.createElement('tr'); row.className = 'attempt live';
    cell(row, String(body.children.length + 1)); cell(row, String(d.round));
    cell(row, d.origin || ''); cell(row, d.outcome || ''); cell(row, d.layer || '');
    cell(row, typeof d.speedup === 'number' ? d.speedup.toFixed(2) + 'x' : '-').className = 'num';
    cell(row, d.detail || '');
    body.appendChild(row);
  });
  source.addEventListener('finished', function (e) {
    var d = JSON.parse(e.data); status.textContent = d.status; status.className = 'badge ' + d.status;
    source.close(); setTimeout(function () { location.reload(); }, 800);
  });
})();
</script>
)";
}

}  // namespace

std::string RenderJobPage(const Json& job) {
  const std::string status = Text(job, "status");
  const Json& report = Field(job, "report");
  std::string html = PageHead("cannbot: " + Text(job, "op") + " " + Text(job, "job_id"));
  html += "<p><a href=\"/\">all jobs</a></p>\n<h1>" + Escape(Text(job, "op")) + " on " +
          Escape(Text(job, "target")) + " <span id=\"status\" class=\"badge " + Escape(status) +
          "\">" + Escape(status) + "</span></h1>\n<p class=\"muted\">job " +
          Escape(Text(job, "job_id")) + " &middot; " + Escape(Text(job, "name")) +
          (report.is_object() ? " &middot; provider " + Escape(Text(report, "provider")) : "") +
          " &middot; <span id=\"progress\"></span></p>\n";
  const Json& error = Field(job, "error");
  if (error.is_object()) {
    html += "<p class=\"badge failed\">" + Escape(Text(error, "code")) + "</p> " +
            Escape(Text(error, "message")) + "\n";
  }
  if (report.is_object()) {
    html += Diagnosis(report) + Roofline(report) + BeforeAfter(report);
    const std::string diff = Text(report, "diff");
    if (!diff.empty()) html += "<h2>The accepted kernel, as a diff</h2>\n" + DiffHtml(diff);
    html += Timeline(report["attempts"]);
  } else {
    html += "<p class=\"muted\">The diagnosis, the roofline and the diff appear when the job "
            "ends; attempts are listed as they are judged.</p>\n" +
            Timeline(Field(job, "attempts"));
  }
  if ((status == "queued" || status == "running") && !Text(job, "events_url").empty()) {
    html += LiveScript(Text(job, "events_url"));
  }
  return html + PageFoot();
}

Json JobDocumentFromReport(const Json& report, const std::string& target) {
  const bool checked = Field(Field(report, "kernel_check"), "ok") == true;
  return {{"job_id", "local"},
          {"status", checked ? "succeeded" : "failed"},
          {"op", Text(report, "op")},
          {"name", Text(report, "original")},
          {"target", target},
          {"attempts", Field(report, "attempts")},
          {"report", report}};
}

std::string RenderErrorPage(const std::string& title, const std::string& message) {
  return PageHead("cannbot: " + title) + "<h1>" + Escape(title) + "</h1>\n<p>" + Escape(message) +
         "</p>\n<p><a href=\"/\">all jobs</a></p>\n" + PageFoot();
}

}  // namespace cannbot::page
