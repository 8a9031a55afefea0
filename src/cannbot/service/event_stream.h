// EventStream: a job's progress as Server-Sent Events (GET /jobs/{id}/events).
//
// The stream replays the stored events after `after` (0 = from the start; SSE clients resume
// with Last-Event-ID), then follows new ones as the EventHub announces them, in order and
// without gaps, since every event is read back from the JobStore. Each frame is
//   id: <n>\nevent: <type>\ndata: <one-line JSON>\n\n
// The stream ends after the job's "finished" event, when the daemon stops (clients reconnect
// after the restart and resume), or when the client goes away; a comment line every
// `keepalive` keeps proxies from closing an idle stream.
//
// Ownership: borrows the JobStore and EventHub, which must outlive every stream (the daemon
// closes the hub before it stops serving). Thread-safety: each stream runs on its
// connection's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cannbot/service/api.h"
#include "cannbot/service/event_hub.h"
#include "cannbot/service/job_store.h"

namespace cannbot::service {

// One SSE frame.
std::string FormatEvent(const EventRecord& event);

StreamFn MakeEventStream(JobStore* jobs, const EventHub* hub, std::string job_id, int64_t after,
                         std::chrono::milliseconds keepalive = std::chrono::seconds(15));

}  // namespace cannbot::service
