// Importer for Linux `perf stat`: the default plain-text report, `-x SEP` (CSV) and `-j`
// (one JSON object a line).
//
// perf measures a whole program, so the result is one kernel. Counts of the same event are
// summed over CPUs (-A) and intervals (-I), whose extra leading columns are recognised by
// where the count and the event name sit; interval mode is said in the notes. In the plain
// report, "( +- 1.23% )" is the spread of -r repeats (the counts are then means per run) and
// "(50.00%)" the share of time a multiplexed counter ran (perf scaled its count): both are
// noted, never mistaken for values. "<not counted>" and "<not supported>" are missing
// values, noted: hardware counters are often unavailable in virtual machines, and the
// profile then carries timing only.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/profile/importers.h"
#include "cannbot/profile/line_reader.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {
namespace {

using text::Trim;

struct Counter {
  double value = 0;
  std::string unit;
  bool counted = false;
  std::string missing;  // "<not supported>" when never counted
};

bool IsCount(std::string_view s) {
  s = Trim(s);
  return text::ParseNumber(s).ok() || s == "<not counted>" || s == "<not supported>";
}

// "cpu_core/cycles/u" -> "cycles"; "cycles:u" -> "cycles".
std::string EventName(std::string_view event) {
  event = Trim(event);
  if (auto slash = event.find('/'); slash != std::string_view::npos) {
    auto end = event.find('/', slash + 1);
    if (end != std::string_view::npos) event = event.substr(slash + 1, end - slash - 1);
  }
  if (auto colon = event.find(':'); colon != std::string_view::npos) event = event.substr(0, colon);
  return std::string(event);
}

// One line of the plain-text report, split into its parts.
struct TextRecord {
  std::string timestamp;  // -I only
  std::string count;      // "1,873.52", "<not supported>"
  std::string unit;       // "msec", "ns", "" for plain counts
  std::string event;
  std::string variance;   // "0.41%" from "( +-  0.41% )"
  std::string running;    // "50.00%" from "(50.00%)"
  bool elapsed = false;   // "1.875 seconds time elapsed": count holds the seconds
};

// Takes "( +- x% )" and "(y%)" groups out of `line`, wherever they sit.
std::string TakeParentheses(std::string_view line, TextRecord* r) {
  std::string rest;
  while (true) {
    const size_t open = line.find('(');
    const size_t close = open == std::string_view::npos ? open : line.find(')', open);
    if (close == std::string_view::npos) break;
    std::string_view inside = Trim(line.substr(open + 1, close - open - 1));
    if (inside.substr(0, 2) == "+-") {
      r->variance = std::string(Trim(inside.substr(2)));
    } else if (!inside.empty() && inside.back() == '%') {
      r->running = std::string(inside);
    } else {
      break;  // part of an event name ("cpu/event=0x3c,umask=0x0/"): keep it
    }
    rest += line.substr(0, open);
    line = line.substr(close + 1);
  }
  return rest + std::string(line);
}

// Whitespace tokens, with "<not supported>" / "<not counted>" kept as one token.
std::vector<std::string> Tokens(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) break;
    size_t end = s.find_first_of(" \t", i);
    if (s[i] == '<') end = s.find('>', i) == std::string_view::npos ? end : s.find('>', i) + 1;
    if (end == std::string_view::npos) end = s.size();
    out.emplace_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

bool ParseTextLine(std::string_view line, TextRecord* r) {
  *r = TextRecord();
  std::string body = TakeParentheses(line, r);
  body = body.substr(0, body.find('#'));  // "# 0.999 CPUs utilized" is perf's comment
  std::vector<std::string> t = Tokens(body);
  size_t i = 0;
  if (t.size() >= 3 && text::ParseNumber(t[0]).ok() && IsCount(t[1])) r->timestamp = t[i++];
  if (i >= t.size() || !IsCount(t[i])) return false;
  r->count = t[i++];
  if (i + 1 < t.size() && t[i] == "+-") i += 2;  // "1.8750 +- 0.0066 seconds time elapsed"
  const size_t left = t.size() - i;
  if (left == 3 && t[i] == "seconds" && t[i + 1] == "time" && t[i + 2] == "elapsed") {
    r->elapsed = true;
    return true;
  }
  if (left == 2 && t[i] == "seconds" && (t[i + 1] == "user" || t[i + 1] == "sys")) {
    r->unit = "seconds";
    r->event = "";  // CPU time of the process: not a counter
    return true;
  }
  if (left == 2) r->unit = t[i++];
  if (t.size() - i != 1 || IsCount(t[i])) return false;
  // "<not supported>,,cycles,..." is a -x record, not a count and an event.
  if (t[i].front() == ',' || t[i].find(",,") != std::string::npos) return false;
  r->event = t[i];
  return true;
}

class PerfReader {
 public:
  PerfReader(const std::string& name, const ImportOptions& options)
      : name_(name), options_(options) {}

  Result<Profile> Read(std::istream& in);

 private:
  // Both forms reduce to (count text, unit, event).
  void Count(std::string_view count, std::string_view unit, std::string_view event);
  bool CsvLine(std::string_view line, int64_t number);
  bool JsonLine(std::string_view line, int64_t number);
  void TextLine(std::string_view line, int64_t number);
  void AppendTextNotes(std::vector<std::string>* notes) const;
  Profile Build();

  std::string name_;
  ImportOptions options_;
  std::map<std::string, Counter> counters_;
  std::vector<std::string> order_;
  Skips skips_;
  char separator_ = 0;
  // Plain-text report: what the notes say about it.
  std::set<std::string> intervals_;
  std::string runs_;          // "5" from "(5 runs)"
  std::string elapsed_spread_;
  std::vector<std::string> multiplexed_;
};

void PerfReader::Count(std::string_view count, std::string_view unit, std::string_view event) {
  const std::string name = EventName(event);
  if (name.empty()) return;
  auto [it, inserted] = counters_.try_emplace(name);
  if (inserted) order_.push_back(name);
  Counter& c = it->second;
  text::Number n = text::ParseNumber(count);
  if (n.ok()) {
    c.value += n.value;
    c.counted = true;
    if (c.unit.empty()) c.unit = std::string(Trim(unit));
  } else if (c.missing.empty()) {
    c.missing = std::string(Trim(count));
  }
}

bool PerfReader::CsvLine(std::string_view line, int64_t number) {
  if (separator_ == 0) {
    for (char sep : {',', ';', '\t', '|'}) {
      if (line.find(sep) != std::string_view::npos) {
        separator_ = sep;
        break;
      }
    }
    if (separator_ == 0) return false;
  }
  std::vector<std::string_view> f;
  std::string scratch;
  text::SplitCsv(line, separator_, &f, &scratch);
  // value, unit, event, ...; with -I a timestamp and with -A/--per-* aggregation ids lead.
  for (size_t i = 0; i + 2 < f.size() && i < 4; ++i) {
    const std::string_view event = Trim(f[i + 2]);
    if (IsCount(f[i]) && !IsCount(f[i + 1]) && !event.empty() && !IsCount(event)) {
      if (i > 0 && text::ParseNumber(f[0]).ok()) intervals_.emplace(Trim(f[0]));
      Count(f[i], f[i + 1], event);
      return true;
    }
  }
  skips_.Add("not a perf stat line", number, "'" + text::RepairUtf8(line.substr(0, 60)) + "'");
  return true;
}

bool PerfReader::JsonLine(std::string_view line, int64_t number) {
  nlohmann::json row = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (row.is_discarded() || !row.is_object()) {
    skips_.Add("not a JSON object", number, "'" + text::RepairUtf8(line.substr(0, 60)) + "'");
    return true;
  }
  auto str = [&](const char* key) {
    auto it = row.find(key);
    if (it == row.end()) return std::string();
    return it->is_string() ? it->get<std::string>() : it->dump();
  };
  const std::string event = str("event");
  if (event.empty()) {
    skips_.Add("no event", number, "an object without \"event\"");
    return true;
  }
  Count(str("counter-value"), str("unit"), event);
  return true;
}

void PerfReader::TextLine(std::string_view line, int64_t number) {
  if (text::ContainsNoCase(line, "Performance counter stats for")) {
    const size_t runs = line.rfind(" runs)");
    if (runs != std::string_view::npos) {
      const size_t open = line.rfind('(', runs);
      if (open != std::string_view::npos) runs_ = line.substr(open + 1, runs - open - 1);
    }
    return;
  }
  TextRecord r;
  if (!ParseTextLine(line, &r)) {
    skips_.Add("not a perf stat line", number, "'" + text::RepairUtf8(line.substr(0, 60)) + "'");
    return;
  }
  if (!r.timestamp.empty()) intervals_.insert(r.timestamp);
  if (r.elapsed) {
    text::Number seconds = text::ParseNumber(r.count);
    if (seconds.ok()) Count(std::to_string(seconds.value * 1e9), "ns", "duration_time");
    elapsed_spread_ = r.variance;
    return;
  }
  if (r.event.empty()) return;
  if (!r.running.empty() && r.running != "100.00%" &&
      std::find(multiplexed_.begin(), multiplexed_.end(), r.event) == multiplexed_.end()) {
    multiplexed_.push_back(r.event + " " + r.running);
  }
  Count(r.count, r.unit, r.event);
}

void PerfReader::AppendTextNotes(std::vector<std::string>* notes) const {
  if (intervals_.size() > 1) {
    notes->push_back("perf stat -I: " + std::to_string(intervals_.size()) +
                     " intervals were summed into one profile of the whole run");
  }
  if (!runs_.empty()) {
    notes->push_back("perf stat -r " + runs_ + ": counts are means per run" +
                     (elapsed_spread_.empty() ? std::string()
                                              : "; time elapsed varied by +- " + elapsed_spread_));
  }
  if (!multiplexed_.empty()) {
    std::string list;
    for (const std::string& m : multiplexed_) list += (list.empty() ? "" : ", ") + m;
    notes->push_back("multiplexed counters (share of time counted; perf scaled the counts): " +
                     list);
  }
}

Profile PerfReader::Build() {
  namespace m = metric;
  Profile profile;
  profile.source_tool = "perf";
  KernelProfile kernel;
  kernel.name = options_.kernel_name;
  if (kernel.name.empty()) {
    std::string base = name_.substr(name_.find_last_of('/') + 1);
    kernel.name = text::RepairUtf8(base.substr(0, base.find('.')));
    if (kernel.name.empty()) kernel.name = "program";
  }
  kernel.core_type = "CPU";
  kernel.launches = 1;
  auto get = [&](const char* event) -> const Counter* {
    auto it = counters_.find(event);
    return it != counters_.end() && it->second.counted ? &it->second : nullptr;
  };
  auto ratio = [&](const char* part, const char* whole) -> std::optional<double> {
    const Counter* p = get(part);
    const Counter* w = get(whole);
    if (p == nullptr || w == nullptr || w->value <= 0) return std::nullopt;
    return p->value / w->value;
  };
  const Counter* task = get("task-clock");
  if (task == nullptr) task = get("cpu-clock");
  if (const Counter* wall = get("duration_time")) {
    kernel.duration_us = wall->value / 1e3;  // ns
  } else if (task != nullptr) {
    kernel.duration_us = task->value * 1e3;  // msec
  }
  if (task != nullptr) kernel.metrics[m::kTaskClockMs] = {task->value, "ms"};
  if (const Counter* c = get("cycles")) kernel.metrics[m::kCycles] = {c->value, "cycles"};
  if (const Counter* c = get("instructions")) kernel.metrics[m::kInstructions] = {c->value, "count"};
  if (auto v = ratio("instructions", "cycles")) kernel.metrics[m::kIpc] = {*v, ""};
  if (auto v = ratio("branch-misses", "branches")) kernel.metrics[m::kBranchMissRate] = {*v, "ratio"};
  if (auto v = ratio("cache-misses", "cache-references")) {
    kernel.metrics[m::kCacheMissRate] = {*v, "ratio"};
  }
  if (auto v = ratio("L1-dcache-load-misses", "L1-dcache-loads")) {
    kernel.metrics[m::kL1HitRate] = {1 - *v, "ratio"};
  }
  std::string missing;
  for (const std::string& event : order_) {
    const Counter& c = counters_[event];
    if (!c.counted) missing += (missing.empty() ? "" : ", ") + event + " " + c.missing;
  }
  if (!missing.empty()) {
    profile.notes.push_back("counters not available: " + missing +
                            " (hardware counters are often missing in virtual machines; the "
                            "diagnosis uses what was counted)");
  }
  profile.kernels.push_back(std::move(kernel));
  AppendTextNotes(&profile.notes);
  skips_.AppendNotes(&profile.notes);
  return profile;
}

Result<Profile> PerfReader::Read(std::istream& in) {
  LineReader reader(&in);
  std::string_view line;
  enum class Form { kUnknown, kJson, kText, kCsv } form = Form::kUnknown;
  while (true) {
    LineReader::Read r = reader.Next(&line);
    if (r == LineReader::Read::kEnd) break;
    if (r == LineReader::Read::kTooLong) {
      return BadInput(name_, reader.line_number(), "a line longer than a megabyte: not perf stat");
    }
    if (IsBannerLine(line)) continue;
    line = Trim(line);
    if (form == Form::kUnknown) {
      form = line.front() == '{'        ? Form::kJson
             : LooksLikePerfText(line) ? Form::kText
                                       : Form::kCsv;
    }
    if (form == Form::kJson) {
      JsonLine(line, reader.line_number());
    } else if (form == Form::kText) {
      TextLine(line, reader.line_number());
    } else if (!CsvLine(line, reader.line_number())) {
      skips_.Add("not a perf stat line", reader.line_number(), "no separator");
    }
  }
  if (counters_.empty()) {
    if (skips_.total() > 0) return BadInput(name_, 0, "no perf stat counters; " + skips_.First());
    return BadInput(name_, 0, "no perf stat counters in the file");
  }
  return Build();
}

}  // namespace

bool LooksLikePerfText(std::string_view line) {
  if (text::ContainsNoCase(line, "Performance counter stats for")) return true;
  TextRecord r;
  return ParseTextLine(Trim(line), &r) && (r.elapsed || !r.event.empty());
}

Result<Profile> ImportPerfStat(std::istream& in, const std::string& name,
                               const ImportOptions& options) {
  PerfReader reader(name, options);
  return reader.Read(in);
}

}  // namespace cannbot::profile::internal
