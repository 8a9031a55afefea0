// daemon_bench: the daemon under load on loopback; prints markdown tables for
// docs/benchmarks.md.
//
//   build/bench/daemon_bench [--jobs 50] [--seconds 5] [--connections 16] [--deadline 900]
//                            [--cannbot build/cannbot] [--no-wrk]
//   build/bench/daemon_bench --line [--jobs 200]   the job line: SQLite vs PostgreSQL
//                                                  at 1, 2, 4 workers (shared_line.h)
//
// 1. Starts `cannbot serve --port 0` on a fresh store (offline provider, default workers).
// 2. Throughput of GET /healthz and GET /ops for --seconds each: wrk when it is installed,
//    else a small keep-alive load client of its own (the table says which).
// 3. --jobs offline POST /optimize jobs (relu and add, alternating) submitted at once from as
//    many threads, then followed until every one has finished: all must be accepted and
//    complete, none lost. Latency is created -> finished (queue wait included); run time is
//    started -> finished.
// 4. The daemon's peak resident memory (VmHWM from /proc/<pid>/status).
// Bounded: every phase stops at --deadline seconds from the start, and says so.
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "shared_line.h"

namespace {

using cannbot::SteadyClock;
using Json = nlohmann::json;

struct Flags {
  int jobs = 50;
  int seconds = 5;
  int connections = 16;
  int deadline = 900;
  std::string cannbot = cannbot::ExecutableDir() + "/../cannbot";
  bool wrk = true;
  bool line = false;  // --line: the job line benchmark instead
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--no-wrk") f->wrk = false;
    else if (a == "--line") f->line = true;
    else if (a == "--jobs" && (v = next())) f->jobs = std::atoi(v);
    else if (a == "--seconds" && (v = next())) f->seconds = std::atoi(v);
    else if (a == "--connections" && (v = next())) f->connections = std::atoi(v);
    else if (a == "--deadline" && (v = next())) f->deadline = std::atoi(v);
    else if (a == "--cannbot" && (v = next())) f->cannbot = v;
    else return false;
  }
  return f->jobs > 0 && f->seconds > 0 && f->connections > 0 && f->deadline > 0;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

std::string CpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

// "VmHWM:    123456 kB" -> MiB.
double ProcStatusMiB(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atof(line.c_str() + field.size() + 1) / 1024.0;
  }
  return 0;
}

struct Load {
  std::string tool;
  double rps = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  long errors = 0;
};

// wrk -t2 -c C -d S --latency URL; nullopt when wrk is missing or its output is unexpected.
std::optional<Load> RunWrk(const std::string& url, const Flags& f) {
  cannbot::SpawnOptions o;
  o.argv = {"wrk", "-t2", "-c" + std::to_string(f.connections), "-d" + std::to_string(f.seconds) + "s",
            "--latency", url};
  auto run = cannbot::RunCommand(o, std::chrono::seconds(f.seconds + 30));
  if (!run.ok() || !run->exit.Success()) return std::nullopt;
  Load load{"wrk 2 threads", 0, 0, 0, 0};
  auto number_after = [&](const std::string& key, double* out, bool millis) {
    const size_t at = run->output.find(key);
    if (at == std::string::npos) return false;
    const char* p = run->output.c_str() + at + key.size();
    char* end = nullptr;
    double v = std::strtod(p, &end);
    if (millis && end && std::string(end, 2) == "us") v /= 1000;
    if (millis && end && end[0] == 's') v *= 1000;
    *out = v;
    return true;
  };
  if (!number_after("Requests/sec:", &load.rps, false)) return std::nullopt;
  number_after("     50%", &load.p50_ms, true);
  number_after("     99%", &load.p99_ms, true);
  if (const size_t at = run->output.find("Non-2xx or 3xx responses:"); at != std::string::npos) {
    load.errors = std::atol(run->output.c_str() + at + 26);
  }
  return load;
}

// The fallback: C keep-alive connections, one thread each, for S seconds.
Load RunOwnClient(int port, const std::string& path, const Flags& f) {
  std::vector<std::vector<double>> latencies(static_cast<size_t>(f.connections));
  std::atomic<long> errors{0};
  const auto end = SteadyClock::now() + std::chrono::seconds(f.seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < f.connections; ++c) {
    threads.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      client.set_keep_alive(true);
      while (SteadyClock::now() < end) {
        const auto start = SteadyClock::now();
        auto res = client.Get(path.c_str());
        if (!res || res->status != 200) ++errors;
        latencies[static_cast<size_t>(c)].push_back(
            std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  return {"own client", static_cast<double>(all.size()) / f.seconds, Percentile(all, 0.5),
          Percentile(all, 0.99), errors.load()};
}

struct JobResults {
  int submitted = 0, accepted = 0, finished = 0, succeeded = 0, found = 0;
  std::vector<std::string> refusals;  // why a submission was not accepted
  std::vector<double> latency, run;
  double wall = 0;
  bool timed_out = false;
};

std::string Body(int i) {
  const std::string op = i % 2 == 0 ? "relu" : "add";
  auto source = cannbot::ReadFile(std::string(CANNBOT_SOURCE_DIR) + "/examples/" + op + "/naive.cpp");
  return Json{{"op", op},
              {"source", source.ok() ? *source : ""},
              {"name", "naive.cpp"},
              {"options", {{"llm", "offline"}, {"budget", 1}, {"rounds", 0}}}}
      .dump();
}

JobResults RunJobs(int port, const Flags& f, SteadyClock::time_point deadline) {
  JobResults r;
  r.submitted = f.jobs;
  std::vector<std::string> ids(static_cast<size_t>(f.jobs));
  std::vector<std::string> why(static_cast<size_t>(f.jobs));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  const auto start = SteadyClock::now();
  for (int i = 0; i < f.jobs; ++i) {
    threads.emplace_back([&, i] {
      const std::string body = Body(i);
      while (!go) std::this_thread::yield();
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(60, 0);
      auto res = client.Post("/optimize", body, "application/json");
      if (res && res->status == 202) {
        ids[static_cast<size_t>(i)] = Json::parse(res->body)["job_id"];
      } else {
        why[static_cast<size_t>(i)] = res ? "HTTP " + std::to_string(res->status) + " " + res->body
                                          : httplib::to_string(res.error());
      }
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  std::set<std::string> unique;
  for (const std::string& id : ids) {
    if (!id.empty()) unique.insert(id);
  }
  r.accepted = static_cast<int>(unique.size());
  for (const std::string& w : why) {
    if (!w.empty()) r.refusals.push_back(w);
  }
  httplib::Client client("127.0.0.1", port);
  std::set<std::string> done;
  while (done.size() < unique.size()) {
    if (SteadyClock::now() > deadline) {
      r.timed_out = true;
      break;
    }
    for (const std::string& id : unique) {
      if (done.count(id)) continue;
      auto res = client.Get(("/jobs/" + id).c_str());
      if (!res || res->status != 200) continue;
      Json job = Json::parse(res->body);
      const std::string status = job["status"];
      if (status == "queued" || status == "running") continue;
      done.insert(id);
      if (status == "succeeded") ++r.succeeded;
      if (job["found"] == true) ++r.found;
      r.latency.push_back(job["finished_at"].get<double>() - job["created_at"].get<double>());
      r.run.push_back(job["finished_at"].get<double>() - job["started_at"].get<double>());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  r.finished = static_cast<int>(done.size());
  r.wall = std::chrono::duration<double>(SteadyClock::now() - start).count();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr, "usage: daemon_bench [--jobs N] [--seconds S] [--connections C] "
                         "[--deadline S] [--cannbot PATH] [--no-wrk]\n");
    return 2;
  }
  if (f.line) {
    std::printf("machine: %s, %u logical CPUs; front end, workers, PostgreSQL and the load "
                "client share them\n\n", CpuName().c_str(), std::thread::hardware_concurrency());
    return shared_line::Run(f.cannbot, f.jobs);
  }
  const auto deadline = SteadyClock::now() + std::chrono::seconds(f.deadline);
  auto dir = cannbot::TempDir::Create("cannbot-daemon-bench");
  if (!dir.ok()) return 2;
  shared_line::Process daemon;
  if (!daemon.Start({f.cannbot, "serve", "--port", "0", "--port-file", dir->File("port"), "--db",
                     dir->File("bench.db"), "--queue-size", std::to_string(std::max(256, f.jobs * 2))},
                    dir->File("daemon.log"), dir->File("port"))) {
    std::fprintf(stderr, "daemon_bench: the daemon did not start (%s)\n", dir->File("daemon.log").c_str());
    return 2;
  }
  const double idle_mib = ProcStatusMiB(daemon.pid(), "VmRSS");
  std::printf("machine: %s, %u logical CPUs; daemon and load client share them\n\n",
              CpuName().c_str(), std::thread::hardware_concurrency());
  std::printf("| endpoint | load | connections | seconds | requests/s | p50 ms | p99 ms | errors |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const char* path : {"/healthz", "/ops"}) {
    if (SteadyClock::now() > deadline) break;
    std::optional<Load> load;
    if (f.wrk) load = RunWrk("http://127.0.0.1:" + std::to_string(daemon.port) + path, f);
    if (!load) load = RunOwnClient(daemon.port, path, f);
    std::printf("| GET %s | %s | %d | %d | %.0f | %.2f | %.2f | %ld |\n", path, load->tool.c_str(),
                f.connections, f.seconds, load->rps, load->p50_ms, load->p99_ms, load->errors);
  }
  std::fflush(stdout);
  JobResults jobs = RunJobs(daemon.port, f, deadline);
  const double peak_mib = ProcStatusMiB(daemon.pid(), "VmHWM");
  const double after_mib = ProcStatusMiB(daemon.pid(), "VmRSS");
  daemon.Stop();
  const int lost = jobs.timed_out ? 0 : jobs.accepted - jobs.finished;  // accepted, never ended
  std::printf("\n| offline jobs | accepted | finished | succeeded | found a faster kernel | lost | "
              "latency p50 s | latency p95 s | run p50 s | run p95 s | wall s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::printf("| %d (relu, add) | %d | %d | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
              jobs.submitted, jobs.accepted, jobs.finished, jobs.succeeded, jobs.found, lost,
              Percentile(jobs.latency, 0.5), Percentile(jobs.latency, 0.95),
              Percentile(jobs.run, 0.5), Percentile(jobs.run, 0.95), jobs.wall);
  std::printf("\ndaemon memory: %.1f MiB resident when idle, %.1f MiB peak (VmHWM), %.1f MiB "
              "resident after the jobs\n",
              idle_mib, peak_mib, after_mib);
  for (const std::string& w : jobs.refusals) std::printf("\nnot accepted: %s", w.c_str());
  if (jobs.timed_out) std::printf("\nstopped at the --deadline of %d s\n", f.deadline);
  return !jobs.timed_out && lost == 0 && jobs.succeeded == jobs.submitted ? 0 : 1;
}
