// `cannbot suggest --server URL`: the same optimisation, run by a cannbot daemon. Submits the
// kernel to POST /optimize, follows GET /jobs/{id}/events and prints the same progress lines
// and report as the in-process mode, with the same exit codes.
//
// A daemon that restarts in the middle loses nothing (service/daemon_client.h).
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cannbot/service/daemon_client.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"
#include "cli/remote.h"

namespace cannbot::cli {
namespace {

using Json = nlohmann::json;

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string TokenFor(const RemoteSuggest& args) {
  if (!args.token.empty()) return args.token;
  const char* env = std::getenv("CANNBOT_TOKEN");
  return env != nullptr ? env : "";
}

Result<Json> Body(const RemoteSuggest& args) {
  CANNBOT_ASSIGN_OR_RETURN(std::string source, ReadFile(args.file, 4u << 20));
  Json body = {{"op", args.op}, {"source", source}, {"name", BaseName(args.file)}};
  if (!args.profile.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(std::string profile, ReadFile(args.profile, 256u << 20));
    body["profile"] = profile;
    body["profile_format"] = args.format.empty() ? "auto" : args.format;
  }
  if (!args.kernel.empty()) body["profile_kernel"] = args.kernel;
  Json options = Json::object();
  if (args.samples > 0) options["samples"] = args.samples;
  if (args.rounds >= 0) options["rounds"] = args.rounds;
  if (args.min_speedup > 0) options["min_speedup"] = args.min_speedup;
  if (args.budget > 0) options["budget"] = args.budget;
  if (args.time_budget > 0) options["time_budget_seconds"] = args.time_budget;
  if (args.seed) options["seed"] = *args.seed;
  if (Json llm = service::LlmOption(args.llm, args.model); !llm.is_null()) options["llm"] = llm;
  body["options"] = options;
  return body;
}

int Print(const RemoteSuggest& args, const Json& job) {
  const Json& report = job["report"];
  const std::string status = job.value("status", std::string());
  if (!report.is_object()) {
    const Json& error = job["error"];
    const std::string why = error.is_object() ? error.value("message", std::string()) : status;
    return ReportError(Status::Aborted("job " + job.value("job_id", std::string()) + " " +
                                       status + ": " + why),
                       args.json);
  }
  if (args.json) {
    std::printf("%s\n", report.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", job.value("report_text", std::string()).c_str());
  }
  std::fflush(stdout);
  const bool checked = report.contains("kernel_check") && report["kernel_check"].value("ok", false);
  if (!checked) return kExitError;
  const bool found = report.value("found", false);
  if (found && !args.out.empty()) {
    Status written = WriteFile(args.out, report.value("kernel", std::string()));
    if (!written.ok()) return ReportError(written, args.json);
    std::fprintf(stderr, "cannbot: wrote the accepted kernel to %s\n", args.out.c_str());
  }
  if (status == "cancelled") std::fprintf(stderr, "cannbot: the job was cancelled\n");
  return found ? kExitOk : kExitRejected;
}

}  // namespace

int RunRemoteSuggest(const RemoteSuggest& args, const optimize::ProgressFn& progress) {
  auto body = Body(args);
  if (!body.ok()) return ReportError(body.status(), args.json);
  service::DaemonClient client({args.server, TokenFor(args)});
  auto id = client.Submit(*body);
  if (!id.ok()) return ReportError(id.status(), args.json);
  std::fprintf(stderr, "cannbot: job %s on %s\n", id->c_str(), args.server.c_str());
  Status followed = client.Follow(*id, progress, [](const std::string& reason) {
    std::fprintf(stderr, "cannbot: the daemon re-queued the job: %s\n", reason.c_str());
  });
  if (!followed.ok()) return ReportError(followed, args.json);
  auto job = client.Fetch(*id);
  if (!job.ok()) return ReportError(job.status(), args.json);
  return Print(args, *job);
}

}  // namespace cannbot::cli
