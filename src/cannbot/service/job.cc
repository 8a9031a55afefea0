#include "cannbot/service/job.h"

namespace cannbot::service {
namespace {

constexpr std::pair<JobState, const char*> kStates[] = {
    {JobState::kQueued, "queued"},       {JobState::kRunning, "running"},
    {JobState::kSucceeded, "succeeded"}, {JobState::kFailed, "failed"},
    {JobState::kCancelled, "cancelled"},
};

}  // namespace

const char* StateName(JobState state) {
  for (const auto& [s, name] : kStates) {
    if (s == state) return name;
  }
  return "unknown";
}

std::optional<JobState> ParseState(std::string_view name) {
  for (const auto& [s, n] : kStates) {
    if (name == n) return s;
  }
  return std::nullopt;
}

bool IsFinished(JobState state) {
  return state == JobState::kSucceeded || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

nlohmann::json JobSpec::ToJson() const {
  nlohmann::json options_json = nlohmann::json::object();
  if (options.samples) options_json["samples"] = *options.samples;
  if (options.rounds) options_json["rounds"] = *options.rounds;
  if (options.budget) options_json["budget"] = *options.budget;
  if (options.min_speedup) options_json["min_speedup"] = *options.min_speedup;
  if (options.time_budget_seconds) options_json["time_budget_seconds"] = *options.time_budget_seconds;
  if (options.seed) options_json["seed"] = *options.seed;
  if (options.llm) {
    if (options.llm->offline) {
      options_json["llm"] = "offline";
    } else {
      nlohmann::json llm = nlohmann::json::object();
      if (!options.llm->url.empty()) llm["url"] = options.llm->url;
      if (!options.llm->model.empty()) llm["model"] = options.llm->model;
      options_json["llm"] = llm;
    }
  }
  nlohmann::json out = {{"op", op},         {"source", source},   {"name", name},
                        {"target", target}, {"options", options_json}};
  if (!profile.empty()) {
    out["profile"] = profile;
    out["profile_format"] = profile_format;
  }
  if (!profile_kernel.empty()) out["profile_kernel"] = profile_kernel;
  return out;
}

}  // namespace cannbot::service
