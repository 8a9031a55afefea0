#include "cannbot/ci/remote_optimizer.h"

#include "cannbot/ci/section.h"

namespace cannbot::ci {

using Json = nlohmann::json;

namespace {

// The daemon takes a plain file name for the kernel (it labels the report's diff with it).
std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

RemoteOptimizer::RemoteOptimizer(RemoteOptimizerConfig config)
    : config_(std::move(config)), client_(config_.daemon) {}

std::string RemoteOptimizer::Describe() const {
  if (config_.llm == "offline") return "a cannbot daemon, offline recipes";
  if (!config_.model.empty()) return "a cannbot daemon, LLM " + config_.model;
  return "a cannbot daemon";  // never its URL: the comment is public
}

Json RemoteOptimizer::Body(const KernelInput& input, std::vector<std::string>* notes) const {
  const KernelJob& job = input.job;
  Json body = {{"op", job.op}, {"source", input.source}, {"name", BaseName(job.path)}};
  if (!input.profile_text.empty()) {
    auto format = UsableProfile(input);
    if (format.ok()) {
      body["profile"] = input.profile_text;
      body["profile_format"] = profile::FormatName(*format);
      if (!job.profile_kernel.empty()) body["profile_kernel"] = job.profile_kernel;
    } else {
      notes->push_back("profile '" + job.profile + "' could not be imported (" +
                       format.status().message() + "); diagnosed without it");
    }
  }
  Json options = {{"min_speedup", config_.thresholds.min_speedup},
                  {"budget", config_.thresholds.max_variants},
                  {"time_budget_seconds", config_.thresholds.time_budget_seconds}};
  if (config_.rounds >= 0) options["rounds"] = config_.rounds;
  if (config_.seed) options["seed"] = *config_.seed;
  if (Json llm = service::LlmOption(config_.llm, config_.model); !llm.is_null()) options["llm"] = llm;
  body["options"] = options;
  return body;
}

Result<KernelOutcome> RemoteOptimizer::Optimize(const KernelInput& input,
                                                const optimize::ProgressFn& progress) {
  std::vector<std::string> notes;
  const Json body = Body(input, &notes);
  CANNBOT_ASSIGN_OR_RETURN(std::string id, client_.Submit(body));
  CANNBOT_RETURN_IF_ERROR(client_.Follow(id, progress));
  CANNBOT_ASSIGN_OR_RETURN(Json job, client_.Fetch(id));
  const Json& report = job.contains("report") ? job["report"] : Json();
  if (!report.is_object()) {
    const Json& error = job.contains("error") ? job["error"] : Json();
    return Status::Unavailable(
        "daemon job " + id + " ended " + job.value("status", std::string("without a status")) +
        (error.is_object() ? ": " + error.value("message", std::string()) : std::string()));
  }
  KernelOutcome outcome;
  outcome.section = SectionFromReportJson(input.job, report);
  // The diff names the repository path, as a local run's does.
  std::string& diff = outcome.section.diff;
  const std::string plain = "--- " + BaseName(input.job.path) + "\n";
  if (diff.rfind(plain, 0) == 0) diff.replace(0, plain.size(), "--- " + input.job.path + "\n");
  outcome.section.notes.insert(outcome.section.notes.begin(), notes.begin(), notes.end());
  if (report.value("found", false)) outcome.kernel = report.value("kernel", std::string());
  outcome.report = report;
  return outcome;
}

}  // namespace cannbot::ci
