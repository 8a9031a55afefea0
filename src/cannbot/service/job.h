// Job: what the daemon was asked to do (a JobSpec, stored as its JSON so a restarted daemon
// can run it again) and where a job stands (JobState).
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

#include "cannbot/engine/job_spec.h"

namespace cannbot::service {

enum class JobState { kQueued, kRunning, kSucceeded, kFailed, kCancelled };

const char* StateName(JobState state);  // "queued", "running", ...
std::optional<JobState> ParseState(std::string_view name);
bool IsFinished(JobState state);        // succeeded, failed or cancelled

// What a job runs: the engine's JobSpec (engine/job_spec.h), stored as its JSON.
using engine::JobOptions;
using engine::JobSpec;
using engine::LlmChoice;

}  // namespace cannbot::service
