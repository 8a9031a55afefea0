// Importer for msprof's timeline (Chrome trace format JSON, msprof_*.json).
//
// The trace is parsed event by event with a SAX handler: only the event being read is held
// in memory, so a trace of gigabytes needs kilobytes. Kernel time per name is the sum of its
// complete ("X") events, plus matched begin/end ("B"/"E") pairs; metadata ("M"), flow
// ("s"/"t"/"f"), counters and instants are ignored except the process names, which tell
// device tasks ("Ascend Hardware") from host API spans.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/profile/importers.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {
namespace {

using nlohmann::json;

// Hands each trace event object (an element of the root array, or of the root object's
// "traceEvents" array) to a callback, building a DOM for that one object only.
class TraceSax {
 public:
  explicit TraceSax(std::function<void(const json&)> on_event) : on_event_(std::move(on_event)) {}

  bool null() { return Value(nullptr); }
  bool boolean(bool v) { return Value(v); }
  bool number_integer(json::number_integer_t v) { return Value(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Value(v); }
  bool number_float(json::number_float_t v, const std::string&) { return Value(v); }
  bool string(std::string& v) { return Value(std::move(v)); }
  bool binary(json::binary_t&) { return true; }
  bool key(std::string& k) {
    if (!levels_.empty()) levels_.back().key = k;
    return true;
  }
  bool start_object(std::size_t) {
    if (!building_.empty()) {
      building_.push_back(Insert(json::object()));
    } else if (!levels_.empty() && levels_.back().events) {
      event_ = json::object();
      building_.push_back(&event_);
    }
    levels_.push_back({true, false, ""});
    return true;
  }
  bool end_object() {
    levels_.pop_back();
    if (!building_.empty()) {
      building_.pop_back();
      if (building_.empty()) on_event_(event_);
    }
    return true;
  }
  bool start_array(std::size_t) {
    bool events = false;
    if (!building_.empty()) {
      building_.push_back(Insert(json::array()));
    } else {
      events = levels_.empty() ||
               (levels_.size() == 1 && levels_[0].object && levels_[0].key == "traceEvents");
    }
    levels_.push_back({false, events, ""});
    return true;
  }
  bool end_array() {
    levels_.pop_back();
    if (!building_.empty()) building_.pop_back();
    return true;
  }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    error_ = ex.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  struct Level {
    bool object;
    bool events;  // an array whose elements are trace events
    std::string key;
  };

  template <typename T>
  bool Value(T&& v) {
    if (!building_.empty()) Insert(json(std::forward<T>(v)));
    return true;
  }
  json* Insert(json v) {
    json* parent = building_.back();
    if (parent->is_object()) {
      json& slot = (*parent)[levels_.back().key];
      slot = std::move(v);
      return &slot;
    }
    parent->push_back(std::move(v));
    return &parent->back();
  }

  std::function<void(const json&)> on_event_;
  std::vector<Level> levels_;
  std::vector<json*> building_;
  json event_;
  std::string error_;
};

std::optional<double> NumberOf(const json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    text::Number n = text::ParseNumber(it->get_ref<const std::string&>());
    if (n.ok()) return n.value;
  }
  return std::nullopt;
}

std::string IdOf(const json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

struct Span {
  std::string pid;
  std::string name;
  std::string task_type;
  double total_us = 0;
  int64_t count = 0;
};

class TimelineReader {
 public:
  TimelineReader(const std::string& name, const ImportOptions& options)
      : name_(name), options_(options) {}

  void OnEvent(const json& event);
  Result<Profile> Finish();
  // "FILE:LINE: message" from nlohmann's "[json.exception...] parse error at line L, ...".
  Status ParseError(const std::string& what) const;

 private:
  void AddSpan(const std::string& pid, const std::string& name, double dur_us,
               const json& event);

  std::string name_;
  ImportOptions options_;
  std::unordered_map<std::string, Span> spans_;  // by pid + '\x1f' + name
  std::vector<std::string> order_;                // first appearance
  std::map<std::string, std::string> process_names_;
  std::map<std::string, std::vector<std::pair<std::string, double>>> open_;  // pid/tid -> B
  int64_t unmatched_ends_ = 0;
  int64_t events_ = 0;
};

void TimelineReader::AddSpan(const std::string& pid, const std::string& name, double dur_us,
                             const json& event) {
  const std::string key = pid + '\x1f' + name;
  auto [it, inserted] = spans_.try_emplace(key);
  Span& span = it->second;
  if (inserted) {
    if (spans_.size() > options_.max_kernels) {
      spans_.erase(it);
      return;
    }
    span.pid = pid;
    span.name = name;
    order_.push_back(key);
  }
  if (span.task_type.empty()) {
    auto args = event.find("args");
    if (args != event.end() && args->is_object()) {
      auto type = args->find("Task Type");
      if (type != args->end() && type->is_string()) span.task_type = type->get<std::string>();
    }
  }
  span.total_us += dur_us;
  span.count += 1;
}

void TimelineReader::OnEvent(const json& event) {
  ++events_;
  auto ph_it = event.find("ph");
  if (ph_it == event.end() || !ph_it->is_string()) return;
  const std::string& ph = ph_it->get_ref<const std::string&>();
  const std::string pid = IdOf(event, "pid");
  const std::string name = event.contains("name") && event["name"].is_string()
                               ? event["name"].get<std::string>()
                               : std::string();
  if (ph == "M") {
    auto args = event.find("args");
    if (name == "process_name" && args != event.end() && args->is_object() &&
        args->contains("name") && (*args)["name"].is_string()) {
      process_names_[pid] = (*args)["name"].get<std::string>();
    }
  } else if (ph == "X") {
    auto dur = NumberOf(event, "dur");
    if (dur && *dur >= 0 && !name.empty()) AddSpan(pid, name, *dur, event);
  } else if (ph == "B" || ph == "E") {
    auto ts = NumberOf(event, "ts");
    if (!ts) return;
    auto& stack = open_[pid + '/' + IdOf(event, "tid")];
    if (ph == "B") {
      stack.emplace_back(name, *ts);
    } else if (stack.empty()) {
      ++unmatched_ends_;
    } else {
      auto [begin_name, begin_ts] = stack.back();
      stack.pop_back();
      if (*ts >= begin_ts && !begin_name.empty()) AddSpan(pid, begin_name, *ts - begin_ts, event);
    }
  }
}

Result<Profile> TimelineReader::Finish() {
  if (events_ == 0) return BadInput(name_, 0, "the trace holds no events");
  if (spans_.empty()) {
    return BadInput(name_, 0, "the trace holds no complete (X) or begin/end (B/E) events");
  }
  // Device tasks: in a process named like "Ascend Hardware", or carrying a "Task Type".
  auto on_device = [&](const Span& s) {
    auto it = process_names_.find(s.pid);
    return !s.task_type.empty() ||
           (it != process_names_.end() && text::ContainsNoCase(it->second, "hardware"));
  };
  bool any_device = false;
  for (const auto& [key, span] : spans_) any_device = any_device || on_device(span);
  Profile profile;
  profile.source_tool = "msprof-timeline";
  Aggregator agg(options_.max_kernels);
  for (const std::string& key : order_) {
    const Span& span = spans_.at(key);
    if (any_device && !on_device(span)) continue;
    Aggregator::Entry* entry = agg.Get(span.name);
    if (entry == nullptr) continue;
    entry->kernel.launches += span.count;
    entry->kernel.duration_us += span.total_us;
    if (entry->kernel.core_type.empty()) entry->kernel.core_type = span.task_type;
  }
  profile.kernels = agg.Finish(&profile.notes);
  if (!any_device) {
    profile.notes.push_back("no device tasks (no 'Ascend Hardware' process, no 'Task Type' "
                            "args): every complete event was counted as a kernel");
  }
  if (unmatched_ends_ > 0) {
    profile.notes.push_back("skipped " + std::to_string(unmatched_ends_) +
                            " end (E) events without a matching begin (B)");
  }
  size_t unclosed = 0;
  for (const auto& [key, stack] : open_) unclosed += stack.size();
  if (unclosed > 0) {
    profile.notes.push_back("skipped " + std::to_string(unclosed) +
                            " begin (B) events that never ended");
  }
  profile.notes.push_back("timelines carry no pipeline metrics: only time per kernel");
  return profile;
}

Status TimelineReader::ParseError(const std::string& what) const {
  std::string message = what;
  if (auto bracket = message.find("] "); message.rfind("[json.exception", 0) == 0 &&
                                         bracket != std::string::npos) {
    message = message.substr(bracket + 2);
  }
  int line = 0;
  if (auto at = message.find("at line "); at != std::string::npos) {
    std::sscanf(message.c_str() + at, "at line %d", &line);
  }
  return BadInput(name_, line, "not valid JSON: " + message);
}

}  // namespace

Result<Profile> ImportTimeline(std::istream& in, const std::string& name,
                               const ImportOptions& options) {
  TimelineReader reader(name, options);
  TraceSax sax([&](const json& event) { reader.OnEvent(event); });
  const bool ok = json::sax_parse(in, &sax);
  if (!ok) return reader.ParseError(sax.error());
  return reader.Finish();
}

}  // namespace cannbot::profile::internal
