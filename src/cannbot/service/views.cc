#include "cannbot/service/views.h"

namespace cannbot::service {
namespace {

using Json = nlohmann::json;

Json TimeOrNull(double t) { return t > 0 ? Json(t) : Json(nullptr); }

// An attempt as GET /jobs/{id} lists it: the verdict's detail stays in the report.
Json AttemptSummary(const Json& attempt) {
  Json out = Json::object();
  for (const char* key : {"index", "round", "origin", "outcome", "layer", "speedup", "detail",
                          "seconds", "code"}) {
    out[key] = attempt.contains(key) ? attempt[key] : Json(nullptr);
  }
  return out;
}

}  // namespace

std::string JobUrl(const std::string& id) { return "/jobs/" + id; }

Json AcceptedJson(const std::string& id, JobState state) {
  return {{"job_id", id},
          {"status", StateName(state)},
          {"status_url", JobUrl(id)},
          {"events_url", JobUrl(id) + "/events"}};
}

Json JobSummaryJson(const JobRecord& job) {
  Json out = {{"job_id", job.id},
              {"status", StateName(job.state)},
              {"op", job.spec.op},
              {"runs", job.runs},
              {"found", job.found},
              {"speedup", job.speedup ? Json(*job.speedup) : Json(nullptr)},
              {"created_at", job.created_at},
              {"started_at", TimeOrNull(job.started_at)},
              {"finished_at", TimeOrNull(job.finished_at)},
              {"status_url", JobUrl(job.id)}};
  out["error"] = job.error_code.empty()
                     ? Json(nullptr)
                     : Json{{"code", job.error_code}, {"message", job.error_message}};
  return out;
}

Json JobJson(const JobRecord& job, const std::vector<Json>& attempts) {
  Json out = JobSummaryJson(job);
  const Json spec = job.spec.ToJson();
  out["name"] = job.spec.name;
  out["target"] = spec["target"];
  out["options"] = spec["options"];
  out["request_id"] = job.request_id;
  out["events_url"] = JobUrl(job.id) + "/events";
  Json list = Json::array();
  for (const Json& a : attempts) list.push_back(AttemptSummary(a));
  out["attempts"] = list;
  out["report"] = job.report ? *job.report : Json(nullptr);
  out["report_text"] = job.report_text.empty() ? Json(nullptr) : Json(job.report_text);
  return out;
}

Json SkillJson(const skills::Skill& s) {
  Json recipes = Json::array();
  for (const skills::Recipe& r : s.recipes) {
    // "op": the first op named ("" for a family recipe), as before several could be named.
    recipes.push_back({{"name", r.name},
                       {"op", r.ops.empty() ? std::string() : r.ops.front()},
                       {"ops", r.ops},
                       {"families", r.families},
                       {"dtypes", r.dtypes},
                       {"summary", r.summary}});
  }
  return {{"name", s.name},
          {"description", s.description},
          {"bottlenecks", s.cannbot.bottlenecks},
          {"ops", s.cannbot.ops},
          {"targets", s.cannbot.targets},
          {"priority", s.cannbot.priority},
          {"recipes", recipes}};
}

}  // namespace cannbot::service
