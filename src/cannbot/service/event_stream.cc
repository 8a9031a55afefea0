#include "cannbot/service/event_stream.h"

namespace cannbot::service {
namespace {

constexpr int kBatch = 256;

}  // namespace

std::string FormatEvent(const EventRecord& event) {
  return "id: " + std::to_string(event.seq) + "\nevent: " + event.type + "\ndata: " +
         event.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
}

StreamFn MakeEventStream(JobStore* jobs, const EventHub* hub, std::string job_id, int64_t after,
                         std::chrono::milliseconds keepalive) {
  return [jobs, hub, job_id, after, keepalive](const StreamWriter& write) {
    int64_t last = after;
    if (!write("retry: 2000\n\n")) return;
    while (true) {
      const uint64_t seen = hub->version();  // before reading: no event can slip between
      auto events = jobs->EventsAfter(job_id, last, kBatch);
      if (!events.ok()) return;
      for (const EventRecord& event : *events) {
        if (!write(FormatEvent(event))) return;
        last = event.seq;
        if (event.type == "finished") return;
      }
      if (events->size() == static_cast<size_t>(kBatch)) continue;
      if (events->empty()) {
        auto state = jobs->StateOf(job_id);
        if (!state.ok() || !state->has_value()) return;
        if (IsFinished(**state)) {
          // The state was read after the events, so the job may have finished in between;
          // its last events were committed with its state (one transaction), so one more read
          // sees them. None: the client resumed after the end, and nothing more will come.
          auto tail = jobs->EventsAfter(job_id, last, kBatch);
          if (!tail.ok() || tail->empty()) return;
          continue;
        }
      }
      if (hub->closed()) return;
      if (!hub->WaitPast(seen, keepalive) && !hub->closed()) {
        if (!write(": keep-alive\n\n")) return;
      }
    }
  };
}

}  // namespace cannbot::service
