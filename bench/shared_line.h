// daemon_bench --line: the job line itself, SQLite against PostgreSQL. For each backend and
// 1, 2 and 4 workers on this machine, N trivial jobs (a kernel that does not compile, its
// failure cached after the first: what is left is submit, claim, events and finish) are
// submitted at once through the HTTP API and followed to their end. Reports jobs/s from the
// first submission to the last finish, and the time from submission to the "started" event
// (the claim), p50 and p95. PostgreSQL runs as a private server started here (the tests'
// helper); its workers are `cannbot worker` processes behind an `--api-only` front end.
#pragma once

#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/postgres_server.h"

namespace shared_line {

using cannbot::SteadyClock;
using Json = nlohmann::json;

// One `cannbot` process (daemon_bench's daemons too); waits for its port file and a 200 from
// /healthz when it serves HTTP.
class Process {
 public:
  bool Start(std::vector<std::string> argv, const std::string& log, const std::string& port_file) {
    cannbot::SpawnOptions o;
    o.argv = std::move(argv);
    o.extra_environment = {"CANNBOT_TOKENS=", "CANNBOT_LLM_URL=", "CANNBOT_HOST=",
                           "CANNBOT_PORT=", "CANNBOT_STORE="};
    o.output_path = log;
    auto child = cannbot::ChildProcess::Spawn(o);
    if (!child.ok()) return false;
    child_.emplace(std::move(child).value());
    if (port_file.empty()) return true;
    const auto until = SteadyClock::now() + std::chrono::seconds(60);
    while (SteadyClock::now() < until && child_->running() && !child_->Poll()) {
      auto text = cannbot::ReadFile(port_file);
      if (text.ok() && !text->empty()) {
        port = std::stoi(*text);
        auto res = httplib::Client("127.0.0.1", port).Get("/healthz");
        if (res && res->status == 200) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  ~Process() { Stop(); }
  // SIGTERM, then SIGKILL after 60 s.
  void Stop() {
    if (!child_ || !child_->running()) return;
    ::kill(child_->pid(), SIGTERM);
    if (!child_->WaitUntil(SteadyClock::now() + std::chrono::seconds(60))) child_->Kill();
  }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  int port = 0;

 private:
  std::optional<cannbot::ChildProcess> child_;
};

struct Row {
  double jobs_per_second = 0;
  double claim_p50 = 0, claim_p95 = 0;
  int finished = 0;
  double idle_claim = 0;  // median submit -> started of single jobs on an idle line
};

inline double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
}

inline std::string BrokenJob(int i) {
  return Json{{"op", "relu"},
              {"source", "extern \"C\" void relu(const float* x, float* y, long n) { oops; }\n"},
              {"name", "broken-" + std::to_string(i) + ".cpp"},
              {"options", {{"llm", "offline"}, {"budget", 1}, {"rounds", 0}}}}
      .dump();
}

// Submits `jobs` at once from 16 threads and follows them to their end.
inline Row Drive(int port, int jobs) {
  std::vector<std::string> ids(static_cast<size_t>(jobs));
  std::vector<std::thread> clients;
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      for (int i = c; i < jobs; i += 16) {
        auto res = client.Post("/optimize", BrokenJob(i), "application/json");
        if (res && res->status == 202) ids[static_cast<size_t>(i)] = Json::parse(res->body)["job_id"];
      }
    });
  }
  for (std::thread& t : clients) t.join();
  Row row;
  std::vector<double> claims;
  double first = 1e300, last = 0;
  httplib::Client client("127.0.0.1", port);
  const auto until = SteadyClock::now() + std::chrono::seconds(600);
  for (const std::string& id : ids) {
    while (!id.empty() && SteadyClock::now() < until) {
      auto res = client.Get(("/jobs/" + id).c_str());
      Json job = res && res->status == 200 ? Json::parse(res->body) : Json();
      const std::string status = job.is_object() ? job.value("status", "") : "";
      if (status == "queued" || status == "running" || status.empty()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      ++row.finished;
      first = std::min(first, job["created_at"].get<double>());
      last = std::max(last, job["finished_at"].get<double>());
      if (job["started_at"].is_number()) {
        claims.push_back(job["started_at"].get<double>() - job["created_at"].get<double>());
      }
      break;
    }
  }
  row.jobs_per_second = last > first ? row.finished / (last - first) : 0;
  row.claim_p50 = Quantile(claims, 0.5);
  row.claim_p95 = Quantile(claims, 0.95);
  // One job at a time on the idle line: how fast a waiting worker hears of new work.
  std::vector<double> idle;
  for (int i = 0; i < 10; ++i) {
    auto res = client.Post("/optimize", BrokenJob(jobs + i), "application/json");
    if (!res || res->status != 202) continue;
    const std::string id = Json::parse(res->body)["job_id"];
    for (int tries = 0; tries < 400; ++tries) {
      auto got = client.Get(("/jobs/" + id).c_str());
      Json job = got && got->status == 200 ? Json::parse(got->body) : Json();
      if (job.is_object() && job["finished_at"].is_number()) {
        idle.push_back(job["started_at"].get<double>() - job["created_at"].get<double>());
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  row.idle_claim = Quantile(idle, 0.5);
  return row;
}

inline int Run(const std::string& cannbot, int jobs) {
  auto dir = cannbot::TempDir::Create("cannbot-line-bench");
  if (!dir.ok()) return 2;
  std::string error;
  auto pg = cannbot::testing::PostgresServer::Start(&error);
  if (!pg) {
    std::fprintf(stderr, "daemon_bench --line: %s\n", error.c_str());
    return 2;
  }
  // The machine model, measured once before any worker starts (workers share this store).
  const std::string local = dir->File("local.db");
  cannbot::SpawnOptions measure;
  measure.argv = {cannbot, "machine", "--db", local};
  (void)cannbot::RunCommand(measure, std::chrono::seconds(300));
  std::printf("| backend | workers | jobs at once | finished | jobs/s | submit -> started p50 ms "
              "| p95 ms | idle line: submit -> started ms |\n|---|---|---|---|---|---|---|---|\n");
  int run = 0;
  for (const char* backend : {"sqlite", "postgresql"}) {
    for (int workers : {1, 2, 4}) {
      ++run;
      const std::string port_file = dir->File("port-" + std::to_string(run));
      std::vector<std::unique_ptr<Process>> fleet;
      auto front = std::make_unique<Process>();
      std::vector<std::string> argv = {cannbot, "serve", "--port", "0", "--port-file", port_file,
                                       "--queue-size", std::to_string(jobs * 2), "--db", local};
      if (std::string(backend) == "sqlite") {
        argv.back() = dir->File("jobs-" + std::to_string(run) + ".db");  // a fresh line
        argv.insert(argv.end(), {"--workers", std::to_string(workers)});
      } else {
        const std::string db = "line" + std::to_string(run);
        if (!pg->CreateDatabase(db, &error)) std::fprintf(stderr, "%s\n", error.c_str());
        argv.insert(argv.end(), {"--store", pg->UrlFor(db), "--api-only"});
        for (int w = 0; w < workers; ++w) {
          fleet.push_back(std::make_unique<Process>());
          fleet.back()->Start({cannbot, "worker", "--store", pg->UrlFor(db), "--db", local},
                              dir->File("worker-" + std::to_string(run) + "-" +
                                        std::to_string(w) + ".log"), "");
        }
      }
      if (!front->Start(argv, dir->File("front-" + std::to_string(run) + ".log"), port_file)) {
        std::printf("| %s | %d | - | the front end did not start |\n", backend, workers);
        continue;
      }
      Row row = Drive(front->port, jobs);
      std::printf("| %s | %d | %d | %d | %.1f | %.0f | %.0f | %.1f |\n", backend, workers, jobs,
                  row.finished, row.jobs_per_second, row.claim_p50 * 1000, row.claim_p95 * 1000,
                  row.idle_claim * 1000);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace shared_line
