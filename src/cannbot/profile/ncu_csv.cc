// Importer for Nsight Compute's --csv output, both pages:
//   details (long): one metric per row, launches identified by the "ID" column, metrics by
//                   their display names ("DRAM Throughput") with a unit column;
//   raw (wide):     one launch per row, metric ids as column names, units in the second row.
// "==PROF==" banner lines, "n/a" values and thousands separators ("1,234,567") are accepted.
// ncu prints the profiled application's own output on the same stream, before the header and
// between records: ncu quotes every field it writes, so an unquoted line is the
// application's, skipped and counted in a note.
// Launches of one kernel name are folded into one KernelProfile.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "cannbot/profile/importers.h"
#include "cannbot/profile/line_reader.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {
namespace {

using text::Trim;

enum class Quantity { kPercent, kTime, kBandwidth, kPlain };

struct NcuMetric {
  const char* name;  // display name (details page) or metric id (raw page)
  Quantity quantity;
  const char* canonical;
};

// The canonical metrics ncu measures. Display names come from the default sections
// (SpeedOfLight, MemoryWorkloadAnalysis, Occupancy, ComputeWorkloadAnalysis).
const std::vector<NcuMetric>& NcuMetrics() {
  namespace m = metric;
  static const std::vector<NcuMetric> metrics = {
      {"Duration", Quantity::kTime, ""},
      {"gpu__time_duration.sum", Quantity::kTime, ""},
      {"Compute (SM) Throughput", Quantity::kPercent, m::kComputeUtilization},
      {"SM [%]", Quantity::kPercent, m::kComputeUtilization},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", Quantity::kPercent,
       m::kComputeUtilization},
      {"Memory Throughput", Quantity::kPercent, m::kMemoryUtilization},
      {"Memory [%]", Quantity::kPercent, m::kMemoryUtilization},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", Quantity::kPercent,
       m::kMemoryUtilization},
      {"Memory Throughput", Quantity::kBandwidth, m::kMemoryBandwidth},
      {"dram__bytes.sum.per_second", Quantity::kBandwidth, m::kMemoryBandwidth},
      {"DRAM Throughput", Quantity::kPercent, m::kDramUtilization},
      {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", Quantity::kPercent,
       m::kDramUtilization},
      {"L1/TEX Hit Rate", Quantity::kPercent, m::kL1HitRate},
      {"l1tex__t_sector_hit_rate.pct", Quantity::kPercent, m::kL1HitRate},
      {"L2 Hit Rate", Quantity::kPercent, m::kL2HitRate},
      {"lts__t_sector_hit_rate.pct", Quantity::kPercent, m::kL2HitRate},
      {"Achieved Occupancy", Quantity::kPercent, m::kAchievedOccupancy},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", Quantity::kPercent,
       m::kAchievedOccupancy},
      {"Elapsed Cycles", Quantity::kPlain, m::kCycles},
      {"gpc__cycles_elapsed.max", Quantity::kPlain, m::kCycles},
      {"Executed Ipc Active", Quantity::kPlain, m::kIpc},
      {"sm__inst_executed.avg.per_cycle_active", Quantity::kPlain, m::kIpc},
  };
  return metrics;
}

// Converts a value to the canonical unit; false when the unit does not fit the quantity.
bool Convert(Quantity quantity, std::string_view unit, double* value) {
  auto scaled = [&](std::initializer_list<std::pair<const char*, double>> units) {
    for (const auto& [name, factor] : units) {
      if (unit == name) {
        *value *= factor;
        return true;
      }
    }
    return false;
  };
  switch (quantity) {
    case Quantity::kPercent:
      if (unit != "%") return false;
      *value /= 100;
      return true;
    case Quantity::kTime:
      return scaled({{"nsecond", 1e-3}, {"ns", 1e-3}, {"usecond", 1}, {"us", 1},
                     {"msecond", 1e3}, {"ms", 1e3}, {"second", 1e6}, {"s", 1e6}});
    case Quantity::kBandwidth:
      return scaled({{"byte/second", 1e-9}, {"Kbyte/second", 1e-6}, {"Mbyte/second", 1e-3},
                     {"Gbyte/second", 1}, {"Tbyte/second", 1e3}, {"byte/s", 1e-9},
                     {"GB/s", 1}, {"TB/s", 1e3}});
    case Quantity::kPlain:
      return true;
  }
  return false;
}

const char* CanonicalUnit(const char* canonical) {
  namespace m = metric;
  const std::string c = canonical;
  if (c == m::kMemoryBandwidth) return "GB/s";
  if (c == m::kCycles) return "cycles";
  if (c == m::kIpc) return "";
  return "ratio";
}

// "(80, 1, 1)" -> 80; 0 when the text is not a geometry or the product is absurd.
int64_t Blocks(std::string_view grid) {
  constexpr int64_t kLimit = int64_t{1} << 40;
  int64_t product = 1;
  bool any = false;
  int64_t current = -1;
  auto multiply = [&]() {
    if (current != 0 && product > kLimit / current) return false;
    product *= current;
    any = true;
    current = -1;
    return true;
  };
  for (char c : grid) {
    if (c >= '0' && c <= '9') {
      current = (current < 0 ? 0 : current * 10) + (c - '0');
      if (current > kLimit) return 0;
    } else if (current >= 0 && !multiply()) {
      return 0;
    }
  }
  if (current >= 0 && !multiply()) return 0;
  return any ? product : 0;
}

// One launch being read (details page rows arrive grouped by ID).
struct Launch {
  std::string id;
  std::string kernel;
  std::string grid, block, device;
  double duration_us = -1;
  std::map<const char*, double> values;  // canonical -> value
};

class NcuReader {
 public:
  NcuReader(const std::string& name, const ImportOptions& options)
      : name_(name), agg_(options.max_kernels) {}

  Result<Profile> Read(std::istream& in);

 private:
  Status Header(const std::vector<std::string_view>& fields, int64_t line);
  void DetailsRow(const std::vector<std::string_view>& fields, int64_t line);
  void RawRow(const std::vector<std::string_view>& fields, int64_t line);
  void Flush();  // folds the current launch into the aggregates
  bool SetMetric(Launch* launch, std::string_view metric, std::string_view unit,
                 std::string_view value, int64_t line);
  std::string_view Field(const std::vector<std::string_view>& f, int column) const {
    return column < 0 || static_cast<size_t>(column) >= f.size()
               ? std::string_view()
               : Trim(f[static_cast<size_t>(column)]);
  }

  std::string name_;
  Aggregator agg_;
  Skips skips_;
  bool details_ = false;
  std::vector<std::string> header_;
  std::vector<std::string> units_;  // raw page
  bool units_pending_ = false;
  int id_ = -1, kernel_ = -1, grid_ = -1, block_ = -1, device_ = -1;
  int metric_name_ = -1, metric_unit_ = -1, metric_value_ = -1;
  Launch launch_;
  std::string device_name_;
  int64_t launches_ = 0;
  int64_t application_lines_ = 0;
  int64_t first_other_line_ = 0;  // the first line that was not ncu's, for the error
  std::string first_other_;
};

// ncu writes every CSV field quoted; the application it profiled does not.
bool IsNcuRecord(std::string_view line) {
  line = Trim(line);
  return !line.empty() && line.front() == '"';
}

Status NcuReader::Header(const std::vector<std::string_view>& fields, int64_t line) {
  for (std::string_view f : fields) header_.emplace_back(Trim(f));
  auto find = [&](const char* column) {
    for (size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == column) return static_cast<int>(i);
    }
    return -1;
  };
  id_ = find("ID");
  kernel_ = find("Kernel Name");
  grid_ = find("Grid Size");
  block_ = find("Block Size");
  device_ = find("Device");
  metric_name_ = find("Metric Name");
  metric_unit_ = find("Metric Unit");
  metric_value_ = find("Metric Value");
  if (kernel_ < 0) {
    return BadInput(name_, line, "not an Nsight Compute CSV: the header has no 'Kernel Name'");
  }
  details_ = metric_name_ >= 0;
  if (details_ && (metric_value_ < 0 || metric_unit_ < 0)) {
    return BadInput(name_, line, "an Nsight Compute details page without 'Metric Unit' and "
                                 "'Metric Value' columns");
  }
  units_pending_ = !details_;
  return Status::Ok();
}

bool NcuReader::SetMetric(Launch* launch, std::string_view metric, std::string_view unit,
                          std::string_view value, int64_t line) {
  text::Number n = text::ParseNumber(value);
  for (const NcuMetric& m : NcuMetrics()) {
    if (metric != m.name) continue;
    double v = n.value;
    if (!Convert(m.quantity, unit, &v)) continue;  // same name, other unit: try the next
    if (n.kind == text::Number::Kind::kBad) {
      skips_.Add("unreadable metric values", line, std::string(metric) + " = '" +
                                                       std::string(value) + "'");
      return true;
    }
    if (!n.ok()) return true;  // n/a
    if (*m.canonical == '\0') {
      launch->duration_us = v;
    } else if (!(m.canonical == std::string_view(metric::kMemoryUtilization) &&
                 launch->values.count(m.canonical) > 0)) {
      launch->values[m.canonical] = v;
    }
    return true;
  }
  return false;
}

void NcuReader::Flush() {
  if (launch_.kernel.empty()) return;
  Aggregator::Entry* entry = agg_.Get(launch_.kernel);
  if (entry != nullptr) {
    ++launches_;
    agg_.AddLaunch(entry, std::max(launch_.duration_us, 0.0));
    KernelProfile& k = entry->kernel;
    if (k.launches == 1) {
      k.core_type = "GPU";
      k.grid = launch_.grid;
      k.block = launch_.block;
    }
    if (int64_t blocks = Blocks(launch_.grid); blocks > 0) agg_.SetBlockDim(entry, blocks);
    for (const auto& [canonical, value] : launch_.values) {
      agg_.Add(entry, agg_.Slot(canonical, CanonicalUnit(canonical)), value);
    }
  }
  if (device_name_.empty()) device_name_ = launch_.device;
  launch_ = Launch();
}

void NcuReader::DetailsRow(const std::vector<std::string_view>& f, int64_t line) {
  const std::string_view id = Field(f, id_);
  const std::string_view kernel = Field(f, kernel_);
  if (kernel.empty()) {
    skips_.Add("no kernel name", line, "the 'Kernel Name' field is empty");
    return;
  }
  if (id != launch_.id || kernel != launch_.kernel) {
    Flush();
    launch_.id = std::string(id);
    launch_.kernel = std::string(kernel);
    launch_.grid = text::RepairUtf8(Field(f, grid_));
    launch_.block = text::RepairUtf8(Field(f, block_));
    launch_.device = text::RepairUtf8(Field(f, device_));
  }
  const std::string_view metric = Field(f, metric_name_);
  if (metric.empty()) return;  // a rule row of newer versions
  SetMetric(&launch_, metric, Field(f, metric_unit_), Field(f, metric_value_), line);
}

void NcuReader::RawRow(const std::vector<std::string_view>& f, int64_t line) {
  if (units_pending_) {  // the second row holds units; the kernel name column is empty
    units_pending_ = false;
    if (Field(f, kernel_).empty()) {
      for (std::string_view u : f) units_.emplace_back(Trim(u));
      return;
    }
  }
  const std::string_view kernel = Field(f, kernel_);
  if (kernel.empty()) {
    skips_.Add("no kernel name", line, "the 'Kernel Name' field is empty");
    return;
  }
  launch_ = Launch();
  launch_.kernel = std::string(kernel);
  launch_.grid = text::RepairUtf8(Field(f, grid_));
  launch_.block = text::RepairUtf8(Field(f, block_));
  launch_.device = text::RepairUtf8(Field(f, device_));
  for (size_t c = 0; c < f.size() && c < header_.size(); ++c) {
    const std::string_view unit = c < units_.size() ? std::string_view(units_[c]) : "";
    SetMetric(&launch_, header_[c], unit, Trim(f[c]), line);
  }
  Flush();
}

Result<Profile> NcuReader::Read(std::istream& in) {
  LineReader reader(&in);
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  bool have_header = false;
  while (true) {
    LineReader::Read r = reader.Next(&line);
    if (r == LineReader::Read::kEnd) break;
    if (r == LineReader::Read::kTooLong) {
      return BadInput(name_, reader.line_number(), "a line longer than a megabyte: not CSV");
    }
    if (IsBannerLine(line)) continue;  // ==PROF== lines may appear anywhere
    if (!IsNcuRecord(line) || (!have_header && line.find("Kernel Name") == line.npos)) {
      if (first_other_line_ == 0) {
        first_other_line_ = reader.line_number();
        first_other_ = text::RepairUtf8(Trim(line).substr(0, 60));
      }
      ++application_lines_;
      continue;
    }
    if (!text::SplitCsv(line, ',', &fields, &scratch)) {
      skips_.Add("unbalanced quotes", reader.line_number(), "a quoted field is never closed");
      continue;
    }
    if (!have_header) {
      CANNBOT_RETURN_IF_ERROR(Header(fields, reader.line_number()));
      have_header = true;
      continue;
    }
    if (fields.size() != header_.size()) {
      skips_.Add("wrong number of fields", reader.line_number(),
                 "expected " + std::to_string(header_.size()) + ", found " +
                     std::to_string(fields.size()));
      continue;
    }
    if (details_) {
      DetailsRow(fields, reader.line_number());
    } else {
      RawRow(fields, reader.line_number());
    }
  }
  Flush();
  if (!have_header) {
    return BadInput(name_, first_other_line_,
                    "not an Nsight Compute CSV: no header line with a \"Kernel Name\" column" +
                        (first_other_.empty() ? std::string()
                                              : " (this line starts '" + first_other_ + "')"));
  }
  if (launches_ == 0) {
    return BadInput(name_, 0, "no kernel launches" +
                                  (skips_.total() > 0 ? "; " + skips_.First() : std::string()));
  }
  Profile profile;
  profile.source_tool = "ncu";
  profile.device = device_name_;
  profile.kernels = agg_.Finish(&profile.notes);
  if (application_lines_ > 0) {
    profile.notes.push_back("skipped " + std::to_string(application_lines_) +
                            " line(s) of the profiled application's own output");
  }
  skips_.AppendNotes(&profile.notes);
  return profile;
}

}  // namespace

Result<Profile> ImportNcuCsv(std::istream& in, const std::string& name,
                             const ImportOptions& options) {
  NcuReader reader(name, options);
  return reader.Read(in);
}

}  // namespace cannbot::profile::internal
