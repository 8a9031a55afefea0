// Job: what the daemon was asked to do (JobSpec: the POST /optimize body, checked, and stored
// as JSON so a restarted daemon can run it again) and where a job stands (JobState).
//
//   queued -> running -> succeeded | failed | cancelled
//   running -> queued  (checkpointed at shutdown, or found running after a crash)
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cannbot::service {

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };

const char* StateName(JobState state);  // "queued", "running", ...
std::optional<JobState> ParseState(std::string_view name);
bool IsFinished(JobState state);        // succeeded, failed or cancelled

// Which provider a job uses. Absent from the options: the daemon's default.
struct LlmChoice {
  bool offline = false;  // the offline recipes, even when the daemon has an LLM
  std::string url;       // "" = the daemon's [llm] url
  std::string model;     // "" = the daemon's [llm] model
};

struct JobOptions {
  std::optional<int> samples;                 // candidates per round
  std::optional<int> rounds;                  // repair rounds after the first
  std::optional<int> budget;                  // offline: most recipe variants tried
  std::optional<double> min_speedup;          // lower 95% bound the speedup must clear
  std::optional<double> time_budget_seconds;  // no new validation starts after this long
  std::optional<uint64_t> seed;               // the validator's random inputs
  std::optional<LlmChoice> llm;
};

struct JobSpec {
  std::string op;
  std::string source;
  std::string name = "kernel.cpp";    // the kernel's file name, for reports and diffs
  std::string profile;                // profiler output, "" = none
  std::string profile_format = "auto";
  std::string profile_kernel;         // which kernel of a multi-kernel profile, "" = hottest
  std::string target = "cpu";
  JobOptions options;

  // The request form (ParseJobSpec reads it back).
  nlohmann::json ToJson() const;
};

}  // namespace cannbot::service
