// Importer for msprof's CSV tables: op_summary_*.csv (one row per launch, with PMU ratios),
// task_time_*.csv (one row per launch, timing only), op_statistic_*.csv (one row per op
// type: count and total time), the l2_cache_*.csv companion, and the PyTorch adapter's
// kernel_details.csv: the same data under different column names.
//
// Columns are found by name through the one alias table (column_map.h), never by position:
// chips drop columns (Context ID, Mix Block Dim, aiv_time), generations rename PMU columns
// (unprefixed on older chips, aic_/aiv_ on Atlas A2), and the adapter renames the base
// columns. A PMU metric is looked up under the "", "aic_" and "aiv_" prefixes, preferring
// the prefix of the core the task ran on.
#include <algorithm>
#include <string>
#include <vector>

#include "cannbot/profile/column_map.h"
#include "cannbot/profile/importers.h"
#include "cannbot/profile/line_reader.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {
namespace {

using text::Number;
using text::ParseNumber;
using text::Trim;

using columns::Combine;
using columns::PmuSpec;
using columns::Role;

// Where one base name sits, per core preference: columns in lookup order.
struct BaseColumns {
  std::vector<int> cube_first;    // aic_, "", aiv_
  std::vector<int> vector_first;  // aiv_, "", aic_
  double scale = 1;               // 0.01 for "(%)" columns
};

struct MetricColumns {
  int slot = -1;
  const PmuSpec* spec = nullptr;
  std::vector<BaseColumns> bases;
};

// Which table the header is: the rows mean different things.
enum class Table { kOpSummary, kKernelDetails, kTaskTime, kOpStatistic, kL2Cache };

struct Layout {
  Table table = Table::kOpSummary;
  size_t fields = 0;
  int name = -1, type = -1, core = -1, duration = -1, block_dim = -1, mix_block_dim = -1;
  int shapes = -1, dtypes = -1;
  int total = -1, avg = -1, count = -1;  // op_statistic
  std::vector<MetricColumns> metrics;
};

int FindName(const std::vector<std::string>& header, const char* name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

// The columns of one PMU metric, per base name, in the lookup order of each core type.
void PlanMetric(const std::vector<std::string>& header, const PmuSpec& spec,
                MetricColumns* columns) {
  for (const char* base : spec.bases) {
    BaseColumns b;
    const std::string plain = base;
    const int aic = FindName(header, ("aic_" + plain).c_str());
    const int none = FindName(header, base);
    const int aiv = FindName(header, ("aiv_" + plain).c_str());
    for (int c : {aic, none, aiv}) if (c >= 0) b.cube_first.push_back(c);
    for (int c : {aiv, none, aic}) if (c >= 0) b.vector_first.push_back(c);
    if (plain.find("(%)") != std::string::npos) b.scale = 0.01;
    if (!b.cube_first.empty()) columns->bases.push_back(std::move(b));
  }
}

Table Classify(const std::vector<std::string>& header, const Layout& layout) {
  if (layout.total >= 0 && layout.count >= 0) return Table::kOpStatistic;
  if (FindName(header, "Hit Rate") >= 0 && layout.duration < 0) return Table::kL2Cache;
  if (FindName(header, "kernel_name") == layout.name) return Table::kTaskTime;
  if (FindName(header, "Name") == layout.name) return Table::kKernelDetails;
  return Table::kOpSummary;
}

Result<Layout> PlanLayout(const std::vector<std::string>& header, Aggregator* agg,
                          const std::string& name) {
  Layout layout;
  layout.fields = header.size();
  layout.name = columns::Find(header, Role::kName);
  layout.type = columns::Find(header, Role::kType);
  layout.core = columns::Find(header, Role::kCore);
  layout.duration = columns::Find(header, Role::kDuration);
  layout.block_dim = columns::Find(header, Role::kBlockDim);
  layout.mix_block_dim = columns::Find(header, Role::kMixBlockDim);
  layout.shapes = columns::Find(header, Role::kShapes);
  layout.dtypes = columns::Find(header, Role::kDtypes);
  layout.total = columns::Find(header, Role::kTotalTime);
  layout.avg = columns::Find(header, Role::kAvgTime);
  layout.count = columns::Find(header, Role::kCount);
  // op_statistic has one row per op type and no instance names: the type names the entry.
  if (layout.name < 0 && layout.count >= 0) layout.name = layout.type;
  if (layout.name < 0) {
    return BadInput(name, 1, "not an msprof or kernel_details CSV: the header has no 'Op Name', "
                             "'Name' or 'kernel_name' column");
  }
  layout.table = Classify(header, layout);
  for (const PmuSpec& spec : columns::PmuSpecs()) {
    MetricColumns columns;
    columns.spec = &spec;
    PlanMetric(header, spec, &columns);
    if (columns.bases.empty()) continue;
    columns.slot = agg->Slot(spec.metric, spec.unit);
    layout.metrics.push_back(std::move(columns));
  }
  const bool timed = layout.duration >= 0 || layout.table == Table::kOpStatistic ||
                     layout.table == Table::kL2Cache;
  if (!timed) {
    return BadInput(name, 1, std::string("the header has no '") +
                                 (layout.table == Table::kKernelDetails ? "Duration(us)"
                                                                         : "Task Duration(us)") +
                                 "' column");
  }
  return layout;
}

bool IsVectorCore(std::string_view core) {
  return core == "AI_VECTOR_CORE" || core == "MIX_AIV";
}

// Reads one metric from a row; false when no column holds a value.
bool ReadMetric(const MetricColumns& columns, const std::vector<std::string_view>& fields,
                bool vector_core, double* value, bool* looked_like_percent) {
  bool any = false;
  double result = 0;
  for (const BaseColumns& base : columns.bases) {
    for (int c : vector_core ? base.vector_first : base.cube_first) {
      Number n = ParseNumber(fields[static_cast<size_t>(c)]);
      if (!n.ok()) continue;
      double v = n.value * base.scale;
      // Ratios above 1 can only be percentages written without a "(%)" header.
      if (base.scale == 1 && std::string_view(columns.spec->unit) == "ratio" && v > 1 &&
          v <= 100) {
        v /= 100;
        *looked_like_percent = true;
      }
      if (!any) {
        result = v;
      } else if (columns.spec->combine == Combine::kMax) {
        result = std::max(result, v);
      } else if (columns.spec->combine == Combine::kSum) {
        result += v;
      }
      any = true;
      break;  // one value per base: the preferred prefix
    }
    if (any && columns.spec->combine == Combine::kFirst) break;
  }
  *value = result;
  return any;
}

class MsprofReader {
 public:
  MsprofReader(const std::string& name, const ImportOptions& options)
      : name_(name), agg_(options.max_kernels) {}

  Result<Profile> Read(std::istream& in);

 private:
  Status ReadHeader(LineReader* reader);
  Result<Profile> Finish();
  void Row(const std::vector<std::string_view>& fields, int64_t line);
  bool Timing(const std::vector<std::string_view>& fields, int64_t line, int64_t* launches,
              double* total_us);
  // Type, core, shapes from the kernel's first row; block dim from every row.
  void Describe(Aggregator::Entry* entry, bool first,
                const std::vector<std::string_view>& fields);

  std::string name_;
  Aggregator agg_;
  Layout layout_;
  std::vector<std::string> header_;
  Skips skips_;
  int64_t rows_ = 0;
  std::vector<std::string> percent_metrics_;
};

Status MsprofReader::ReadHeader(LineReader* reader) {
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  while (true) {
    LineReader::Read r = reader->Next(&line);
    if (r == LineReader::Read::kEnd) return BadInput(name_, 0, "the file is empty");
    if (r == LineReader::Read::kTooLong) {
      return BadInput(name_, reader->line_number(), "the first line is not a CSV header "
                                                    "(longer than a megabyte)");
    }
    if (!Trim(line).empty()) break;
  }
  if (!text::SplitCsv(line, ',', &fields, &scratch)) {
    return BadInput(name_, reader->line_number(), "unbalanced quotes in the header");
  }
  for (std::string_view f : fields) header_.emplace_back(Trim(f));
  CANNBOT_ASSIGN_OR_RETURN(layout_, PlanLayout(header_, &agg_, name_));
  return Status::Ok();
}

// The row's launches and their total time; false (with a skip) when the row has none.
bool MsprofReader::Timing(const std::vector<std::string_view>& fields, int64_t line,
                          int64_t* launches, double* total_us) {
  auto number = [&](int column) { return ParseNumber(fields[static_cast<size_t>(column)]); };
  *launches = 1;
  *total_us = 0;
  if (layout_.table == Table::kOpStatistic) {
    Number count = number(layout_.count);
    Number total = number(layout_.total);
    if (!total.ok() && layout_.avg >= 0 && count.ok()) {
      total = number(layout_.avg);
      total.value *= count.value;
    }
    if (!count.ok() || count.value < 1 || count.value > 1e15 || !total.ok() || total.value < 0) {
      skips_.Add("no usable count or total time", line, "the 'Count' or 'Total Time' is empty");
      return false;
    }
    *launches = static_cast<int64_t>(count.value);
    *total_us = total.value;
    return true;
  }
  if (layout_.duration < 0) return true;  // l2_cache rows carry no time
  Number d = number(layout_.duration);
  if (!d.ok() || d.value < 0) {
    skips_.Add("no usable duration", line,
               "duration '" + std::string(Trim(fields[static_cast<size_t>(layout_.duration)])) +
                   "'");
    return false;
  }
  *total_us = d.value;
  return true;
}

void MsprofReader::Describe(Aggregator::Entry* entry, bool first,
                            const std::vector<std::string_view>& fields) {
  auto field = [&](int column) {
    return column < 0 ? std::string_view() : Trim(fields[static_cast<size_t>(column)]);
  };
  KernelProfile& k = entry->kernel;
  if (first) {
    k.type = std::string(field(layout_.type));
    k.core_type = std::string(field(layout_.core));
    std::string_view shapes = field(layout_.shapes);
    if (shapes != "N/A") k.input_shapes = text::RepairUtf8(shapes);
    std::string_view dtypes = field(layout_.dtypes);
    if (dtypes != "N/A") k.input_dtypes = text::RepairUtf8(dtypes);
  }
  // A MIX task whose Block Dim is empty or 0 has its blocks in Mix Block Dim.
  auto blocks = [&](int column) {
    Number b = column < 0 ? Number() : ParseNumber(fields[static_cast<size_t>(column)]);
    return b.ok() && b.value >= 0 && b.value < 1e12 ? static_cast<int64_t>(b.value) : -1;
  };
  int64_t block_dim = blocks(layout_.block_dim);
  if (block_dim <= 0) block_dim = std::max(block_dim, blocks(layout_.mix_block_dim));
  if (block_dim >= 0) agg_.SetBlockDim(entry, block_dim);
}

void MsprofReader::Row(const std::vector<std::string_view>& fields, int64_t line) {
  const size_t n = fields.size();
  if (n != layout_.fields && !(n == layout_.fields + 1 && Trim(fields.back()).empty())) {
    skips_.Add("wrong number of fields", line,
               "expected " + std::to_string(layout_.fields) + ", found " + std::to_string(n));
    return;
  }
  const std::string_view name = Trim(fields[static_cast<size_t>(layout_.name)]);
  if (name == header_[static_cast<size_t>(layout_.name)]) {
    skips_.Add("a repeated header", line, "files concatenated?");
    return;
  }
  if (name.empty() || name == "N/A") {
    skips_.Add("no op name", line, "the name column is empty");
    return;
  }
  int64_t launches = 1;
  double duration = 0;
  if (!Timing(fields, line, &launches, &duration)) return;
  Aggregator::Entry* entry = agg_.Get(name);
  if (entry == nullptr) return;  // the Aggregator counts and notes these
  ++rows_;
  agg_.AddLaunches(entry, launches, duration);
  Describe(entry, entry->kernel.launches == launches, fields);
  const bool vector_core = IsVectorCore(Trim(
      layout_.core < 0 ? std::string_view() : fields[static_cast<size_t>(layout_.core)]));
  for (const MetricColumns& columns : layout_.metrics) {
    double value = 0;
    bool percent = false;
    if (!ReadMetric(columns, fields, vector_core, &value, &percent)) continue;
    agg_.Add(entry, columns.slot, value);
    if (percent && std::find(percent_metrics_.begin(), percent_metrics_.end(),
                             columns.spec->metric) == percent_metrics_.end()) {
      percent_metrics_.push_back(columns.spec->metric);
    }
  }
}

Result<Profile> MsprofReader::Read(std::istream& in) {
  LineReader reader(&in);
  CANNBOT_RETURN_IF_ERROR(ReadHeader(&reader));
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  while (true) {
    LineReader::Read r = reader.Next(&line);
    if (r == LineReader::Read::kEnd) break;
    if (r == LineReader::Read::kTooLong) {
      return BadInput(name_, reader.line_number(), "a line longer than a megabyte: not CSV");
    }
    if (Trim(line).empty()) continue;
    // op_summary fields never hold newlines: an open quote is a damaged row, not a record
    // that continues on the next line.
    if (!text::SplitCsv(line, ',', &fields, &scratch)) {
      skips_.Add("unbalanced quotes", reader.line_number(), "a quoted field is never closed");
      continue;
    }
    Row(fields, reader.line_number());
  }
  return Finish();
}

Result<Profile> MsprofReader::Finish() {
  const int64_t skipped = skips_.total();
  if (rows_ == 0) {
    if (skipped == 0) return BadInput(name_, 0, "no rows after the header");
    return BadInput(name_, 0, "no usable rows; " + skips_.First());
  }
  if (skipped > rows_) {
    return BadInput(name_, 0, std::to_string(skipped) + " of " + std::to_string(skipped + rows_) +
                                  " rows could not be read (mixed or corrupt content?); first "
                                  "problem at " + skips_.First());
  }
  Profile profile;
  profile.source_tool = layout_.table == Table::kKernelDetails ? "kernel_details" : "msprof";
  if (layout_.table == Table::kOpStatistic) {
    profile.notes.push_back("msprof op_statistic: one entry per op type (count and total "
                            "time), no pipeline metrics; op_summary has them per launch");
  } else if (layout_.table == Table::kTaskTime) {
    profile.notes.push_back("msprof task_time: launch times only, no pipeline metrics");
  }
  profile.kernels = agg_.Finish(&profile.notes);
  skips_.AppendNotes(&profile.notes);
  for (const std::string& metric : percent_metrics_) {
    profile.notes.push_back(metric + " values above 1 were read as percentages");
  }
  return profile;
}

}  // namespace

Result<Profile> ImportMsprofCsv(std::istream& in, const std::string& name,
                                const ImportOptions& options) {
  MsprofReader reader(name, options);
  return reader.Read(in);
}

}  // namespace cannbot::profile::internal
