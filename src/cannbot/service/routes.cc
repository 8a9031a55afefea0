#include "cannbot/service/routes.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "cannbot/ops/registry.h"
#include "cannbot/profile/import.h"
#include "cannbot/service/event_stream.h"
#include "cannbot/eval/eval_store.h"
#include "cannbot/page/evals_page.h"
#include "cannbot/page/job_page.h"
#include "cannbot/page/jobs_index.h"
#include "cannbot/service/views.h"
#include "cannbot/util/hash.h"

namespace cannbot::service {
namespace {

using Json = nlohmann::json;

// Compares without an early exit, so the time taken does not reveal a token's prefix.
bool SameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

// Who submits, for fair ordering between submitters: a fingerprint of the bearer token (never
// the token), "anonymous" on a daemon without authentication.
std::string Submitter(const ApiRequest& request) {
  const std::string header = request.Header("authorization");
  if (header.empty()) return "anonymous";
  return "token-" + Sha256Hex(header).substr(0, 12);
}

// A browser asks for text/html; API clients get JSON, the default.
bool WantsHtml(const ApiRequest& request) {
  return request.Header("accept").find("text/html") != std::string::npos;
}

ApiResponse HtmlResponse(int status, std::string body) {
  ApiResponse response;
  response.status = status;
  response.content_type = "text/html; charset=utf-8";
  response.body = std::move(body);
  return response;
}

ApiResponse WithHeader(ApiResponse response, std::string name, std::string value) {
  response.headers.emplace_back(std::move(name), std::move(value));
  return response;
}

ApiResponse ShuttingDown() {
  return WithHeader(ErrorResponse(503, "shutting_down",
                                  "the daemon is shutting down and accepts no new work; retry "
                                  "after it restarts"),
                    "Retry-After", "30");
}

// A JSON body is required: other content types answer 415 before the body is read.
std::optional<ApiResponse> RequireJson(const ApiRequest& request) {
  std::string type = request.Header("content-type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && std::isspace(static_cast<unsigned char>(type.back()))) type.pop_back();
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type == "application/json") return std::nullopt;
  return ErrorResponse(415, "unsupported_media_type",
                       "the body must be application/json (got '" +
                           (type.empty() ? std::string("none") : type) + "')");
}

ApiResponse BadInput(const Status& status, const std::string& code) {
  return ErrorResponse(400, code, status.message());
}

// A non-negative integer query value; nullopt when absent, an error when malformed.
Result<std::optional<int64_t>> QueryInt(const ApiRequest& request, const std::string& name,
                                        int64_t high) {
  auto it = request.query.find(name);
  if (it == request.query.end()) return std::optional<int64_t>();
  int64_t value = -1;
  const std::string& text = it->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 || value > high) {
    return Status::InvalidArgument("query parameter '" + name + "' must be an integer from 0 to " +
                                   std::to_string(high));
  }
  return std::optional<int64_t>(value);
}

Result<bool> QueryFlag(const ApiRequest& request, const std::string& name) {
  auto it = request.query.find(name);
  if (it == request.query.end() || it->second == "false" || it->second == "0") return false;
  if (it->second == "true" || it->second == "1" || it->second.empty()) return true;
  return Status::InvalidArgument("query parameter '" + name + "' must be true or false");
}

// Idempotency keys are stored and compared: printable ASCII, at most 255 characters.
bool SaneKey(const std::string& key) {
  if (key.size() > 255) return false;
  for (char c : key) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

Api::Api(Service* service, std::vector<std::string> tokens)
    : service_(service), tokens_(std::move(tokens)) {
  auto bind = [this](ApiResponse (Api::*method)(ApiRequest&)) {
    return [this, method](ApiRequest& request) { return (this->*method)(request); };
  };
  router_.Add("GET", "/", bind(&Api::Index));
  router_.Add("GET", "/evals", bind(&Api::Evals));
  router_.Add("GET", "/healthz", bind(&Api::Healthz));
  router_.Add("GET", "/metrics", bind(&Api::MetricsText));
  router_.Add("POST", "/optimize", bind(&Api::Optimize));
  router_.Add("GET", "/jobs", bind(&Api::ListJobs));
  router_.Add("GET", "/jobs/{id}", bind(&Api::GetJob));
  router_.Add("DELETE", "/jobs/{id}", bind(&Api::CancelJob));
  router_.Add("GET", "/jobs/{id}/events", bind(&Api::JobEvents));
  router_.Add("POST", "/validate", bind(&Api::Validate));
  router_.Add("POST", "/diagnose", bind(&Api::Diagnose));
  router_.Add("GET", "/ops", bind(&Api::ListOps));
  router_.Add("GET", "/ops/{name}", bind(&Api::GetOp));
  router_.Add("GET", "/skills", bind(&Api::ListSkills));
}

bool Api::Authorized(const ApiRequest& request) const {
  if (tokens_.empty()) return true;
  const std::string header = request.Header("authorization");
  const std::string prefix = "Bearer ";
  if (header.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string given = header.substr(prefix.size());
  bool ok = false;
  for (const std::string& token : tokens_) ok |= SameSecret(given, token);
  return ok;
}

ApiResponse Api::Handle(ApiRequest& request) {
  ApiResponse response;
  if (!(request.method == "GET" && request.path == "/healthz") && !Authorized(request)) {
    response = WithHeader(ErrorResponse(401, "unauthorized",
                                        "a valid bearer token is required (Authorization: "
                                        "Bearer <token>)"),
                          "WWW-Authenticate", "Bearer");
  } else {
    response = router_.Dispatch(request);
  }
  service_->metrics().http_requests->Add({{"code", std::to_string(response.status)}});
  return response;
}

ApiResponse Api::Healthz(ApiRequest&) {
  Health h = service_->CheckHealth();
  Json body = {{"status", h.ready ? "ok" : "unavailable"},
               {"ready", h.ready},
               {"store", h.store_detail},
               {"llm", h.llm.detail},
               {"accepting", h.accepting},
               {"workers", h.workers},
               {"workers_started", h.workers_started},
               {"queue_depth", h.queue_depth}};
  if (!h.ready) {
    std::string why = !h.accepting          ? "the daemon is shutting down"
                      : !h.store_ok         ? "the store is not usable: " + h.store_detail
                      : !h.llm.reachable    ? "the LLM endpoint is " + h.llm.detail
                                            : "the workers are starting";
    body["error"] = {{"code", "not_ready"}, {"message", why}};
  }
  return JsonResponse(h.ready ? 200 : 503, body);
}

ApiResponse Api::MetricsText(ApiRequest&) {
  ApiResponse response;
  response.content_type = "text/plain; version=0.0.4; charset=utf-8";
  response.body = service_->RenderMetrics();
  return response;
}

ApiResponse Api::Optimize(ApiRequest& request) {
  if (!service_->Accepting()) return ShuttingDown();
  if (auto refused = RequireJson(request)) return *refused;
  auto body = ParseBody(request.body);
  if (!body.ok()) return BadInput(body.status(), "invalid_json");
  auto spec = ParseJobSpec(*body);
  if (!spec.ok()) return BadInput(spec.status(), "invalid_argument");
  auto wait = QueryFlag(request, "wait");
  if (!wait.ok()) return BadInput(wait.status(), "invalid_argument");
  const std::string key = request.Header("idempotency-key");
  if (!SaneKey(key)) {
    return ErrorResponse(400, "invalid_argument",
                         "the Idempotency-Key header must be printable ASCII, at most 255 "
                         "characters");
  }
  auto submitted = service_->Submit(*spec, request.request_id, key, Submitter(request));
  if (!submitted.ok()) return StatusResponse(submitted.status());
  using Kind = SubmitResult::Kind;
  switch (submitted->kind) {
    case Kind::kRefused: return ErrorResponse(400, submitted->code, submitted->message);
    case Kind::kShuttingDown: return ShuttingDown();
    case Kind::kQueueFull:
      return WithHeader(ErrorResponse(429, "queue_full",
                                      "the job queue is full; retry later"),
                        "Retry-After", "10");
    case Kind::kConflict:
      return ErrorResponse(422, "idempotency_conflict",
                           "this Idempotency-Key was used with a different request (job " +
                               submitted->job_id + ")");
    case Kind::kAccepted:
    case Kind::kExisting: break;
  }
  return Accepted(*submitted, *wait);
}

std::shared_ptr<Api::HeldSlot> Api::HoldConnection() {
  const int limit = std::max(1, service_->config().server.http_threads - 4);
  if (held_.fetch_add(1) >= limit) {
    held_.fetch_sub(1);
    return nullptr;
  }
  return std::make_shared<HeldSlot>(&held_);
}

ApiResponse Api::Accepted(const SubmitResult& submitted, bool wait) {
  const std::string& id = submitted.job_id;
  const bool replay = submitted.kind == SubmitResult::Kind::kExisting;
  std::optional<JobState> state = JobState::kQueued;
  if (replay) {  // a replay answers with where the job stands now
    auto now = service_->jobs().StateOf(id);
    if (!now.ok()) return StatusResponse(now.status());
    state = *now;
  }
  std::shared_ptr<HeldSlot> slot = wait ? HoldConnection() : nullptr;
  if (slot && !(state && IsFinished(*state))) {
    auto finished = service_->WaitFinished(id);
    if (!finished.ok()) return StatusResponse(finished.status());
    state = *finished;
  }
  // Without ?wait (or without a free slot to wait in) the answer is 202, a replay's too.
  ApiResponse response = (wait && state && IsFinished(*state))
                             ? JobDocument(200, id)
                             : JsonResponse(202, AcceptedJson(id, state.value_or(JobState::kQueued)));
  response.headers.emplace_back("Location", JobUrl(id));
  if (replay) response.headers.emplace_back("Idempotent-Replayed", "true");
  return response;
}

Result<std::optional<Json>> Api::FindJob(const std::string& id) {
  CANNBOT_ASSIGN_OR_RETURN(std::optional<JobRecord> job, service_->jobs().Get(id));
  if (!job) return std::optional<Json>();
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Json> attempts, service_->jobs().Attempts(id, job->runs));
  return std::optional<Json>(JobJson(*job, attempts));
}

ApiResponse Api::JobDocument(int status, const std::string& id) {
  auto job = FindJob(id);
  if (!job.ok()) return StatusResponse(job.status());
  if (!*job) return ErrorResponse(404, "not_found", "no job " + id);
  return JsonResponse(status, **job);
}

ApiResponse Api::ListJobs(ApiRequest& request) {
  std::optional<JobState> state;
  if (auto it = request.query.find("state"); it != request.query.end()) {
    state = ParseState(it->second);
    if (!state) {
      return ErrorResponse(400, "invalid_argument",
                           "query parameter 'state' must be queued, running, succeeded, failed "
                           "or cancelled");
    }
  }
  auto limit = QueryInt(request, "limit", 1000);
  if (!limit.ok()) return BadInput(limit.status(), "invalid_argument");
  auto jobs = service_->jobs().List(state, static_cast<int>(limit->value_or(50)));
  if (!jobs.ok()) return StatusResponse(jobs.status());
  Json list = Json::array();
  for (const JobRecord& job : *jobs) list.push_back(JobSummaryJson(job));
  return JsonResponse(200, {{"jobs", list}, {"count", list.size()}});
}

ApiResponse Api::GetJob(ApiRequest& request) {
  const std::string& id = request.params[0];
  if (!WantsHtml(request)) return JobDocument(200, id);
  auto job = FindJob(id);
  if (!job.ok()) return StatusResponse(job.status());
  if (!*job) return HtmlResponse(404, page::RenderErrorPage("Not found", "no job " + id));
  return HtmlResponse(200, page::RenderJobPage(**job));
}

ApiResponse Api::Evals(ApiRequest& request) {
  auto limit = QueryInt(request, "limit", 1000);
  if (!limit.ok()) return BadInput(limit.status(), "invalid_argument");
  // The runs `cannbot eval` stored beside this daemon's store file.
  auto evals = eval::EvalStore::Open(eval::EvalStore::DefaultPath(service_->config().db));
  if (!evals.ok()) return StatusResponse(evals.status());
  auto rows = (*evals)->List(static_cast<int>(limit->value_or(100)));
  if (!rows.ok()) return StatusResponse(rows.status());
  Json list = Json::array();
  for (const eval::EvalSummary& row : *rows) list.push_back(row.ToJson());
  if (WantsHtml(request)) return HtmlResponse(200, page::RenderEvalsPage(list));
  return JsonResponse(200, {{"evals", list}, {"count", list.size()}});
}

ApiResponse Api::Index(ApiRequest& request) {
  page::JobsFilter filter;
  if (auto it = request.query.find("op"); it != request.query.end()) filter.op = it->second;
  std::optional<JobState> state;
  if (auto it = request.query.find("status"); it != request.query.end() && !it->second.empty()) {
    state = ParseState(it->second);
    if (!state) {
      return HtmlResponse(400, page::RenderErrorPage("Bad request", "unknown status " + it->second));
    }
    filter.status = it->second;
  }
  auto jobs = service_->jobs().List(state, 200);
  if (!jobs.ok()) return StatusResponse(jobs.status());
  std::vector<Json> summaries;
  for (const JobRecord& job : *jobs) summaries.push_back(JobSummaryJson(job));
  return HtmlResponse(200, page::RenderJobsIndex(summaries, filter, service_->registry().Names()));
}

ApiResponse Api::CancelJob(ApiRequest& request) {
  const std::string& id = request.params[0];
  auto cancelled = service_->Cancel(id);
  if (!cancelled.ok()) return StatusResponse(cancelled.status());
  switch (cancelled->kind) {
    case CancelResult::Kind::kNotFound: return ErrorResponse(404, "not_found", "no job " + id);
    case CancelResult::Kind::kAlreadyFinished:
      return ErrorResponse(409, "conflict", "job " + id + " has already " +
                                                (cancelled->state == JobState::kCancelled
                                                     ? std::string("been cancelled")
                                                     : std::string(StateName(cancelled->state))));
    case CancelResult::Kind::kCancelled: return JobDocument(200, id);
    case CancelResult::Kind::kCancelling: return JobDocument(202, id);
  }
  return ErrorResponse(500, "internal", "unexpected cancel result");
}

ApiResponse Api::JobEvents(ApiRequest& request) {
  const std::string& id = request.params[0];
  auto state = service_->jobs().StateOf(id);
  if (!state.ok()) return StatusResponse(state.status());
  if (!state->has_value()) return ErrorResponse(404, "not_found", "no job " + id);
  auto after = QueryInt(request, "after", INT64_MAX);
  if (!after.ok()) return BadInput(after.status(), "invalid_argument");
  int64_t from = after->value_or(0);
  const std::string last = request.Header("last-event-id");
  if (!last.empty()) {  // an SSE client resuming: the header wins
    int64_t value = -1;
    auto [end, error] = std::from_chars(last.data(), last.data() + last.size(), value);
    if (error != std::errc() || end != last.data() + last.size() || value < 0) {
      return ErrorResponse(400, "invalid_argument", "Last-Event-ID must be an event number");
    }
    from = value;
  }
  std::shared_ptr<HeldSlot> slot = HoldConnection();
  if (!slot) {
    return WithHeader(ErrorResponse(429, "busy", "too many open event streams; retry later"),
                      "Retry-After", "5");
  }
  ApiResponse response;
  response.content_type = "text/event-stream";
  StreamFn stream = MakeEventStream(&service_->jobs(), &service_->hub(), id, from);
  // The slot is released when the stream (and so this function object) is gone.
  response.stream = [stream, slot](const StreamWriter& write) { stream(write); };
  return response;
}

ApiResponse Api::Validate(ApiRequest& request) {
  if (!service_->Accepting()) return ShuttingDown();
  if (auto refused = RequireJson(request)) return *refused;
  auto body = ParseBody(request.body);
  if (!body.ok()) return BadInput(body.status(), "invalid_json");
  auto parsed = ParseValidateRequest(*body);
  if (!parsed.ok()) return BadInput(parsed.status(), "invalid_argument");
  if (service_->registry().Find(parsed->op) == nullptr) {
    return ErrorResponse(400, "unknown_op", "unknown op '" + parsed->op + "' (GET /ops lists them)");
  }
  auto answer = parsed->package ? service_->ValidatePackage(*parsed)
                                : [&]() -> Result<nlohmann::json> {
                                    auto verdict = service_->Validate(*parsed);
                                    if (!verdict.ok()) return verdict.status();
                                    return verdict->ToJson();
                                  }();
  if (!answer.ok()) {
    if (answer.status().code() == Status::Code::kUnavailable) {
      return WithHeader(ErrorResponse(429, "busy", answer.status().message()), "Retry-After", "5");
    }
    return StatusResponse(answer.status());
  }
  return JsonResponse(200, *answer);
}

ApiResponse Api::Diagnose(ApiRequest& request) {
  if (!service_->Accepting()) return ShuttingDown();
  if (auto refused = RequireJson(request)) return *refused;
  auto body = ParseBody(request.body);
  if (!body.ok()) return BadInput(body.status(), "invalid_json");
  auto parsed = ParseDiagnoseRequest(*body);
  if (!parsed.ok()) return BadInput(parsed.status(), "invalid_argument");
  auto diagnosis = service_->Diagnose(*parsed);
  if (!diagnosis.ok()) {
    if (diagnosis.status().code() == Status::Code::kInvalidArgument) {
      return BadInput(diagnosis.status(), "bad_profile");
    }
    return StatusResponse(diagnosis.status());
  }
  return JsonResponse(200, *diagnosis);
}

ApiResponse Api::ListOps(ApiRequest&) {
  Json list = Json::array();
  for (const ops::OpSpec& op : service_->registry().ops()) list.push_back(op.ToJson(false));
  return JsonResponse(200, {{"ops", list}});
}

ApiResponse Api::GetOp(ApiRequest& request) {
  const ops::OpSpec* op = service_->registry().Find(request.params[0]);
  if (op == nullptr) return ErrorResponse(404, "not_found", "unknown op '" + request.params[0] + "'");
  return JsonResponse(200, op->ToJson(true));
}

ApiResponse Api::ListSkills(ApiRequest&) {
  Json list = Json::array();
  for (const skills::Skill& s : service_->skills().skills()) list.push_back(SkillJson(s));
  return JsonResponse(200, {{"skills", list}});
}

}  // namespace cannbot::service
