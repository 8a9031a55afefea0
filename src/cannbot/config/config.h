// Config: every setting of the CLI and the daemon as one typed struct with commented
// defaults, read from a file (TOML or JSON), then CANNBOT_* environment variables, then flags
// (each later source wins). Unknown keys are errors, so a typo is not silently ignored.
//
// File shape (TOML; the JSON form has the same keys):
//   db = "/var/lib/cannbot/cannbot.db"
//   min_speedup = 1.05
//   [llm]      url, model, api_key_env, temperature, max_tokens, timeout_seconds, retries
//   [loop]     samples, rounds, good_enough_roofline, token_budget
//   [skills]   dirs = ["/opt/team-skills"]
//   [compiler] command, flags = ["-O3", ...]
//
// Thread-safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "cannbot/llm/chat_client.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/util/status.h"

namespace cannbot::config {

struct Config {
  std::string db;             // "" = store::Store::DefaultPath()
  double min_speedup = 1.05;  // lower 95% bound the speedup must clear
  llm::LlmConfig llm;         // llm.base_url "" = the offline provider
  optimize::LoopConfig loop;
  std::vector<std::string> skill_dirs;  // in addition to the built-in skills/
  std::string compiler = "g++";
  std::vector<std::string> compiler_flags;  // empty = the validator's defaults
};

// Reads a .toml or .json file into `config` (keys present override).
Status LoadFile(const std::string& path, Config* config);
// Applies CANNBOT_DB, CANNBOT_MIN_SPEEDUP, CANNBOT_LLM_URL, CANNBOT_MODEL, CANNBOT_SAMPLES,
// CANNBOT_ROUNDS, CANNBOT_TEMPERATURE, CANNBOT_MAX_TOKENS, CANNBOT_SKILLS_DIRS (':'-separated),
// CANNBOT_COMPILER. A malformed number is an error naming the variable.
Status ApplyEnvironment(Config* config);

}  // namespace cannbot::config
