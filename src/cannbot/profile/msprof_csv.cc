// Importer for msprof op_summary_*.csv, its l2_cache_*.csv companion and the PyTorch
// adapter's kernel_details.csv: the same per-launch rows under different column names.
//
// Columns are found by name, never by position: chips drop columns (Context ID, Mix Block
// Dim, aiv_time), generations rename PMU columns (unprefixed on older chips, aic_/aiv_ on
// Atlas A2), and the adapter renames the base columns. A PMU metric is looked up under the
// "", "aic_" and "aiv_" prefixes, preferring the prefix of the core the task ran on.
#include <algorithm>
#include <string>
#include <vector>

#include "cannbot/profile/importers.h"
#include "cannbot/profile/line_reader.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile::internal {
namespace {

using text::Number;
using text::ParseNumber;
using text::Trim;

enum class Combine { kFirst, kMax, kSum };

// A canonical metric and the column names (without prefix) it is read from.
struct PmuSpec {
  const char* metric;
  const char* unit;
  Combine combine;
  std::vector<const char*> bases;
};

const std::vector<PmuSpec>& PmuSpecs() {
  namespace m = metric;
  static const std::vector<PmuSpec> specs = {
      {m::kMacRatio, "ratio", Combine::kFirst, {"mac_ratio"}},
      {m::kVecRatio, "ratio", Combine::kFirst, {"vec_ratio"}},
      {m::kScalarRatio, "ratio", Combine::kFirst, {"scalar_ratio"}},
      {m::kMte1Ratio, "ratio", Combine::kFirst, {"mte1_ratio"}},
      {m::kMte2Ratio, "ratio", Combine::kFirst, {"mte2_ratio"}},
      {m::kMte3Ratio, "ratio", Combine::kFirst, {"mte3_ratio"}},
      {m::kFixpipeRatio, "ratio", Combine::kFirst, {"fixpipe_ratio"}},
      {m::kIcacheMissRate, "ratio", Combine::kFirst, {"icache_miss_rate"}},
      {m::kTotalCycles, "cycles", Combine::kFirst, {"total_cycles"}},
      {m::kBankConflictRate, "ratio", Combine::kMax,
       {"vec_bank_cflt_ratio", "vec_bankgroup_cflt_ratio"}},
      {m::kL2HitRate, "ratio", Combine::kFirst, {"l2_cache_hit_rate", "l2_hit_rate", "Hit Rate"}},
      {m::kL2VictimRate, "ratio", Combine::kFirst, {"Victim Rate"}},
      {m::kMemoryBandwidth, "GB/s", Combine::kSum,
       {"main_mem_read_bw(GB/s)", "main_mem_write_bw(GB/s)"}},
      {m::kCubeUtilization, "ratio", Combine::kFirst, {"cube_utilization(%)"}},
      {m::kTaskWaitUs, "us", Combine::kFirst, {"Task Wait Time(us)", "Wait Time(us)"}},
  };
  return specs;
}

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

struct Layout {
  bool kernel_details = false;  // the PyTorch adapter's names
  size_t fields = 0;
  int name = -1, type = -1, core = -1, duration = -1, block_dim = -1, shapes = -1, dtypes = -1;
  std::vector<MetricColumns> metrics;
};

int Find(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
  }
  return -1;
}

Result<Layout> PlanLayout(const std::vector<std::string>& header, Aggregator* agg,
                          const std::string& name) {
  Layout layout;
  layout.fields = header.size();
  layout.name = Find(header, {"Op Name"});
  if (layout.name < 0) {
    layout.name = Find(header, {"Name"});
    layout.kernel_details = layout.name >= 0;
  }
  if (layout.name < 0) {
    return BadInput(name, 1, "not an msprof op_summary or kernel_details CSV: the header has no "
                             "'Op Name' or 'Name' column");
  }
  layout.type = Find(header, {"OP Type", "Type"});
  layout.core = Find(header, {"Task Type", "Accelerator Core"});
  layout.duration = Find(header, {"Task Duration(us)", "Duration(us)"});
  layout.block_dim = Find(header, {"Block Dim", "Block Num"});
  layout.shapes = Find(header, {"Input Shapes"});
  layout.dtypes = Find(header, {"Input Data Types"});
  for (const PmuSpec& spec : PmuSpecs()) {
    MetricColumns columns;
    columns.spec = &spec;
    for (const char* base : spec.bases) {
      BaseColumns b;
      const std::string plain = base;
      const int aic = Find(header, {("aic_" + plain).c_str()});
      const int none = Find(header, {base});
      const int aiv = Find(header, {("aiv_" + plain).c_str()});
      for (int c : {aic, none, aiv}) if (c >= 0) b.cube_first.push_back(c);
      for (int c : {aiv, none, aic}) if (c >= 0) b.vector_first.push_back(c);
      if (plain.find("(%)") != std::string::npos) b.scale = 0.01;
      if (!b.cube_first.empty()) columns.bases.push_back(std::move(b));
    }
    if (columns.bases.empty()) continue;
    columns.slot = agg->Slot(spec.metric, spec.unit);
    layout.metrics.push_back(std::move(columns));
  }
  const bool l2_only = Find(header, {"Hit Rate"}) >= 0;
  if (layout.duration < 0 && !l2_only) {
    return BadInput(name, 1, std::string("the header has no '") +
                                 (layout.kernel_details ? "Duration(us)" : "Task Duration(us)") +
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
  double duration = 0;
  if (layout_.duration >= 0) {
    Number d = ParseNumber(fields[static_cast<size_t>(layout_.duration)]);
    if (!d.ok() || d.value < 0) {
      skips_.Add("no usable duration", line,
                 "duration '" + std::string(Trim(fields[static_cast<size_t>(layout_.duration)])) +
                     "'");
      return;
    }
    duration = d.value;
  }
  Aggregator::Entry* entry = agg_.Get(name);
  if (entry == nullptr) return;  // the Aggregator counts and notes these
  ++rows_;
  agg_.AddLaunch(entry, duration);
  auto field = [&](int column) {
    return column < 0 ? std::string_view() : Trim(fields[static_cast<size_t>(column)]);
  };
  KernelProfile& k = entry->kernel;
  if (k.launches == 1) {
    k.type = std::string(field(layout_.type));
    k.core_type = std::string(field(layout_.core));
    std::string_view shapes = field(layout_.shapes);
    if (shapes != "N/A") k.input_shapes = text::RepairUtf8(shapes);
    std::string_view dtypes = field(layout_.dtypes);
    if (dtypes != "N/A") k.input_dtypes = text::RepairUtf8(dtypes);
  }
  if (layout_.block_dim >= 0) {
    Number b = ParseNumber(fields[static_cast<size_t>(layout_.block_dim)]);
    if (b.ok() && b.value >= 0 && b.value < 1e12) {
      agg_.SetBlockDim(entry, static_cast<int64_t>(b.value));
    }
  }
  const bool vector_core = IsVectorCore(field(layout_.core));
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
  profile.source_tool = layout_.kernel_details ? "kernel_details" : "msprof";
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
