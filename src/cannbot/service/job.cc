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

}  // namespace cannbot::service
