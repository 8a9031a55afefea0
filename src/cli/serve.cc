// `cannbot serve`: the daemon. Settings come from the config file, then CANNBOT_* variables,
// then these flags. Binds 127.0.0.1 unless told otherwise. SIGTERM or SIGINT: stop accepting
// work, give running jobs the grace period, checkpoint the rest, exit 0.
//
// `cannbot worker --store postgresql://...`: the same process without the API unless asked
// (--port): it claims jobs from the shared store, one at a time by default, and serves
// /healthz and /metrics on the port when one is given (docs/scaling.md).
#include <signal.h>

#include <cstdio>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "cannbot/config/config.h"
#include "cannbot/service/http_server.h"
#include "cannbot/service/routes.h"
#include "cannbot/service/service.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct ServeFlags {
  std::string host;
  int port = -1;  // -1: from the config
  std::string db;
  std::string config_file;
  std::string port_file;
  int workers = 0;
  int queue_size = 0;
  bool insecure_sandbox = false;  // --insecure-sandbox
  std::string store;              // --store: the shared job store
  bool api_only = false;          // --api-only: run no jobs here
  double lease_seconds = 0;       // --lease-seconds, 0 = from the config
  bool worker = false;            // `cannbot worker`
};

Status BuildConfig(const ServeFlags& flags, config::Config* config) {
  if (!flags.config_file.empty()) CANNBOT_RETURN_IF_ERROR(config::LoadFile(flags.config_file, config));
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(config));
  if (flags.insecure_sandbox) config->insecure_sandbox = true;
  if (!flags.host.empty()) config->server.host = flags.host;
  if (flags.port >= 0) config->server.port = flags.port;
  if (!flags.db.empty()) config->db = flags.db;
  if (flags.workers > 0) config->server.workers = flags.workers;
  if (flags.queue_size > 0) config->server.queue_size = flags.queue_size;
  if (!flags.store.empty()) config->server.store = flags.store;
  if (flags.api_only) config->server.run_jobs = false;
  if (flags.lease_seconds > 0) config->server.lease_seconds = flags.lease_seconds;
  if (flags.worker) {
    if (config->server.store.empty()) {
      return Status::InvalidArgument("cannbot worker needs a shared store: --store "
                                     "postgresql://user@host:port/db (or [server] store)");
    }
    config->server.run_jobs = true;
    if (flags.workers <= 0) config->server.workers = 1;  // timings must not overlap
  }
  if (config->server.port < 0 || config->server.port > 65535) {
    return Status::InvalidArgument("the port must be from 0 to 65535");
  }
  return Status::Ok();
}

std::shared_ptr<spdlog::logger> MakeLogger() {
  // Not registered with spdlog's global registry: the daemon owns its logger.
  auto log = std::make_shared<spdlog::logger>("cannbot",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
  log->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  log->flush_on(spdlog::level::info);
  return log;
}

// The port a test or script asked to learn, written whole (rename) so a reader never sees
// half of it.
Status WritePortFile(const std::string& path, int port) {
  CANNBOT_RETURN_IF_ERROR(WriteFile(path + ".tmp", std::to_string(port) + "\n"));
  if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) {
    return Status::IoError("cannot write " + path);
  }
  return Status::Ok();
}

int Run(const ServeFlags& flags, const ops::Registry& registry) {
  config::Config config;
  Status s = BuildConfig(flags, &config);
  if (!s.ok()) return ReportError(s, false);
  // Signals are taken by sigwait below, so no handler and no global state is needed; every
  // thread started from here on inherits the mask (child processes get a clean one).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto log = MakeLogger();
  auto service = service::Service::Open(config, registry, log);
  if (!service.ok()) return ReportError(service.status(), false);
  s = (*service)->Start();
  if (!s.ok()) return ReportError(s, false);
  if (flags.worker && flags.port < 0) {  // a worker without an API: jobs only
    log->info("worker running; SIGTERM or SIGINT stops it");
    int signal = 0;
    sigwait(&signals, &signal);
    (*service)->Shutdown(std::chrono::milliseconds(static_cast<int64_t>(
        std::max(0.0, config.server.shutdown_grace_seconds) * 1000)));
    log->info("stopped");
    return kExitOk;
  }
  service::Api api(service->get(), config.server.tokens);
  service::HttpServerOptions http;
  http.host = config.server.host;
  http.port = config.server.port;
  http.max_body_bytes = static_cast<size_t>(std::max<int64_t>(1024, config.server.max_body_bytes));
  http.threads = config.server.http_threads;
  service::HttpServer server(http, [&api](service::ApiRequest& r) { return api.Handle(r); }, log);
  auto port = server.Start();
  if (!port.ok()) {
    (*service)->Shutdown(std::chrono::milliseconds(0));
    return ReportError(port.status(), false);
  }
  log->info("listening on http://{}:{} ({})", config.server.host, *port,
            config.server.tokens.empty() ? "no authentication" : "bearer tokens required");
  if (!flags.port_file.empty()) {
    Status written = WritePortFile(flags.port_file, *port);
    if (!written.ok()) log->error("{}", written.ToString());
  }

  int signal = 0;
  sigwait(&signals, &signal);
  const auto grace = std::chrono::milliseconds(
      static_cast<int64_t>(std::max(0.0, config.server.shutdown_grace_seconds) * 1000));
  log->info("{}: shutting down (running jobs get {} s, then are checkpointed)",
            signal == SIGTERM ? "SIGTERM" : "SIGINT", grace.count() / 1000.0);
  (*service)->Shutdown(grace);
  server.Stop();
  log->info("stopped");
  return kExitOk;
}

}  // namespace

Command RegisterServe(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand("serve", "Run the cannbot daemon (HTTP API, durable jobs)");
  cmd->add_option("--host", flags->host, "Address to bind (default 127.0.0.1)");
  cmd->add_option("--port", flags->port, "Port (default 8750; 0 = any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--db", flags->db, "Store file (jobs, compile cache, machine model)");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  cmd->add_option("--config", flags->config_file, "Config file (TOML or JSON; see server/cannbot.toml)");
  cmd->add_option("--port-file", flags->port_file,
                  "Write the bound port to this file once listening (for scripts and tests)");
  cmd->add_option("--workers", flags->workers, "Jobs run at once (default: logical CPUs)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--queue-size", flags->queue_size, "Queued jobs before 429 (default 256)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--store", flags->store,
                  "Shared job store, postgresql://user@host:port/db (default: the --db file)");
  cmd->add_flag("--api-only", flags->api_only,
                "Run no jobs here: an API front end over a shared store");
  cmd->add_option("--lease-seconds", flags->lease_seconds,
                  "Shared store: how long a claim lasts unless renewed (default 30)")
      ->check(CLI::PositiveNumber);
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

Command RegisterWorker(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<ServeFlags>();
  flags->worker = true;
  CLI::App* cmd = app.add_subcommand(
      "worker", "Run jobs from a shared PostgreSQL job store (one machine of a fleet)");
  cmd->add_option("--store", flags->store, "The shared job store, postgresql://user@host:port/db");
  cmd->add_option("--db", flags->db, "Local store file (compile cache, machine model)");
  cmd->add_option("--config", flags->config_file, "Config file (TOML or JSON)");
  cmd->add_option("--workers", flags->workers, "Jobs run at once (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lease-seconds", flags->lease_seconds,
                  "How long a claim lasts unless renewed (default 30)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--port", flags->port, "Serve /healthz and /metrics (and the API) here")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", flags->host, "Address to bind with --port (default 127.0.0.1)");
  cmd->add_option("--port-file", flags->port_file, "Write the bound port to this file");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
