// Importer for Linux `perf stat -x SEP` (CSV) and `perf stat -j` (one JSON object a line).
//
// perf measures a whole program, so the result is one kernel. Counts of the same event are
// summed over CPUs (-A) and intervals (-I), whose extra leading columns are recognised by
// where the count and the event name sit. "<not counted>" and "<not supported>" are missing
// values, noted: hardware counters are often unavailable in virtual machines, and the
// profile then carries timing only.
#include <map>
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
  Profile Build();

  std::string name_;
  ImportOptions options_;
  std::map<std::string, Counter> counters_;
  std::vector<std::string> order_;
  Skips skips_;
  char separator_ = 0;
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
  skips_.AppendNotes(&profile.notes);
  return profile;
}

Result<Profile> PerfReader::Read(std::istream& in) {
  LineReader reader(&in);
  std::string_view line;
  bool json = false;
  bool decided = false;
  while (true) {
    LineReader::Read r = reader.Next(&line);
    if (r == LineReader::Read::kEnd) break;
    if (r == LineReader::Read::kTooLong) {
      return BadInput(name_, reader.line_number(), "a line longer than a megabyte: not perf stat");
    }
    if (IsBannerLine(line)) continue;
    line = Trim(line);
    if (!decided) {
      json = line.front() == '{';
      decided = true;
    }
    if (json) {
      JsonLine(line, reader.line_number());
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

Result<Profile> ImportPerfStat(std::istream& in, const std::string& name,
                               const ImportOptions& options) {
  PerfReader reader(name, options);
  return reader.Read(in);
}

}  // namespace cannbot::profile::internal
