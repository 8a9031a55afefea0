// JobPage: one optimisation job as an HTML page: the op and target, the diagnosis with its
// evidence, a roofline plot with the baseline, the accepted kernel and every timed attempt,
// the before/after table with confidence intervals, the coloured diff of the accepted
// kernel, and the timeline of attempts (round, origin, verdict, layer, reason). While the job
// is queued or running, a small inline script follows the job's event stream: each attempt
// becomes a timeline row as it is judged, and the page reloads itself when the job ends.
//
// The page is a view of the document GET /jobs/{id} answers with (service/views.h); a local
// run (`cannbot suggest --html`) builds the same document from its report. Every string from
// a kernel, a model or a request is escaped; the page loads nothing from anywhere.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cannbot::page {

// `job`: {job_id, status, op, target, attempts: [...], report: OptimizeReport JSON | null,
// events_url?, error?}.
std::string RenderJobPage(const nlohmann::json& job);

// The same document for a run that has only its report (a local `cannbot suggest`).
nlohmann::json JobDocumentFromReport(const nlohmann::json& report, const std::string& target);

// An error page ("Not found", "no job j-123"; both escaped), with a link to the list.
std::string RenderErrorPage(const std::string& title, const std::string& message);

}  // namespace cannbot::page
