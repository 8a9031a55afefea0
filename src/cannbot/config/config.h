// Config: every setting of the CLI and the daemon as one typed struct with commented
// defaults, read from a file (TOML or JSON), then CANNBOT_* environment variables, then flags
// (each later source wins). Unknown keys are errors, so a typo is not silently ignored.
//
// File shape (TOML; the JSON form has the same keys):
//   db = "/var/lib/cannbot/cannbot.db"
//   min_speedup = 1.05
//   ops_dirs = ["/opt/team-ops"]     op spec files (docs/op-spec.md) beside the built-ins
//   op_memory_limit_mb = 256          most tensor memory one call of a spec file's op may need
//   insecure_sandbox = false          run untrusted kernels where a sandbox layer is missing
//   ascendc_device = "a950.toml"      the NPU the ascendc target emulates (docs/ascendc.md)
//   memory_cgroup = "auto"            memory cgroups for kernels and compilers: auto|require|off
//   [llm]      url, model, api_key_env, temperature, max_tokens, timeout_seconds, retries
//   [loop]     samples, rounds, good_enough_roofline, token_budget
//   [skills]   dirs = ["/opt/team-skills"], model_picks = false
//   [compiler] command, flags = ["-O3", ...]
//   [server]   host, port, tokens, queue_size, workers, max_body_bytes, retention_days,
//              retention_jobs, shutdown_grace_seconds, http_threads, llm_urls
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/llm/chat_client.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/util/status.h"

namespace cannbot::config {

// The daemon (`cannbot serve`); the CLI ignores it.
struct ServerConfig {
  std::string host = "127.0.0.1";       // loopback unless told otherwise
  int port = 8750;                      // 0 = any free port (the daemon logs which)
  std::vector<std::string> tokens;      // accepted bearer tokens; empty = no authentication
  int queue_size = 256;                 // queued jobs beyond which POST /optimize answers 429
  int workers = 0;                      // jobs run at once; 0 = the number of logical CPUs
  int64_t max_body_bytes = 8 << 20;     // larger request bodies answer 413
  double retention_days = 30;           // finished jobs older than this are pruned; 0 = keep
  int retention_jobs = 10000;           // most finished jobs kept; 0 = no limit
  double shutdown_grace_seconds = 30;   // SIGTERM: running jobs get this long, then checkpoint
  int http_threads = 32;                // connections served at once (an SSE stream holds one)
  std::vector<std::string> llm_urls;    // LLM URLs a job may name besides [llm] url
  // Where jobs live. "" = the local store file (`db`), one daemon runs them; a
  // "postgresql://user@host:port/db" URL = a server shared by API front ends and
  // `cannbot worker`s on many machines, which claim jobs under leases (docs/scaling.md).
  std::string store;
  bool run_jobs = true;        // false: an API front end only (needs a shared store)
  double lease_seconds = 30;   // shared store: a claim lasts this long unless renewed (every third)
};

struct Config {
  std::string db;             // "" = store::Store::DefaultPath()
  double min_speedup = 1.05;  // lower 95% bound the speedup must clear
  llm::LlmConfig llm;         // llm.base_url "" = the offline provider
  optimize::LoopConfig loop;
  std::vector<std::string> skill_dirs;  // in addition to the built-in skills/
  // With an LLM endpoint: the model chooses among the best-scored skills by name and
  // description (optimize/skill_pick.h) instead of taking the rule-based choice as is. Off by
  // default: it costs one more request per job.
  bool model_picks_skills = false;
  std::vector<std::string> ops_dirs;    // op spec directories, in addition to the built-ins
  // Most tensor memory one call of a spec file's op may need (the perf gate keeps several
  // calls' data); a spec above it is refused with the figure.
  int64_t op_memory_limit_mb = 256;
  // Where the machine cannot apply a sandbox layer (docs/security.md), validation refuses to
  // run untrusted code unless this is set; every report then lists what is missing.
  bool insecure_sandbox = false;
  // The NPU the ascendc target emulates and estimates for: "" = the Ascend 910B figures
  // (ascendc/device_profile.h), else a TOML file of DeviceProfile fields that override them
  // (ub_bytes = 253952, vector_cores = 40, ...). Kernels, host tiling and estimates see it.
  std::string ascendc_device;
  // Memory cgroups for the validator's children (docs/security.md, "Resources"): "auto" uses a
  // writable memory controller where there is one (one group for all of this process's
  // children, 75% of the machine, and one per child limited to its job), else rlimits alone;
  // "require" refuses to validate without one; "off" never uses one.
  std::string memory_cgroup = "auto";
  std::string compiler = "g++";
  std::vector<std::string> compiler_flags;  // empty = the validator's defaults
  ServerConfig server;
};

// Reads a .toml or .json file into `config` (keys present override).
Status LoadFile(const std::string& path, Config* config);

// `text` as one JSON document: parsed as JSON when `name` ends in .json, else as TOML (tables
// become objects; dates and times become null, which no setting accepts). Shared by every
// cannbot file that may be written in either form. Errors: InvalidArgument naming `name` and,
// for TOML, the line.
Result<nlohmann::json> ParseTomlOrJson(const std::string& text, const std::string& name);
// Applies CANNBOT_DB, CANNBOT_MIN_SPEEDUP, CANNBOT_LLM_URL, CANNBOT_MODEL, CANNBOT_SAMPLES,
// CANNBOT_ROUNDS, CANNBOT_TEMPERATURE, CANNBOT_MAX_TOKENS, CANNBOT_SKILLS_DIRS and
// CANNBOT_OPS_DIRS (':'-separated, added to the file's lists),
// CANNBOT_COMPILER, CANNBOT_ASCENDC_DEVICE, CANNBOT_INSECURE_SANDBOX (1/true), and for the
// daemon CANNBOT_HOST,
// CANNBOT_PORT, CANNBOT_WORKERS, CANNBOT_STORE and
// CANNBOT_TOKENS (','-separated; replaces the file's list). A malformed number is an error
// naming the variable.
Status ApplyEnvironment(Config* config);

}  // namespace cannbot::config
