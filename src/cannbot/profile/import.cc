// Format names, detection by content, and dispatch to the per-format importers.
#include "cannbot/profile/import.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <memory>
#include <optional>
#include <streambuf>

#include <nlohmann/json.hpp>

#include "cannbot/profile/column_map.h"
#include "cannbot/profile/importers.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile {
namespace {

using internal::BadInput;

constexpr size_t kHeadBytes = 64 << 10;

struct FormatInfo {
  Format format;
  const char* name;
  const char* description;
};

constexpr FormatInfo kFormats[] = {
    {Format::kAuto, "auto", "detected from the content"},
    {Format::kMsprof, "msprof", "msprof op_summary CSV"},  // also task_time, op_statistic
    {Format::kMsprofDir, "msprof_dir", "msprof output directory"},
    {Format::kKernelDetails, "kernel_details", "PyTorch adapter kernel_details CSV"},
    {Format::kTimeline, "timeline", "msprof timeline (Chrome trace) JSON"},
    {Format::kNcu, "ncu", "Nsight Compute CSV"},
    {Format::kPerf, "perf", "perf stat output (plain, -x or -j)"},
    {Format::kJson, "json", "cannbot profile JSON"},
};

// An istream over memory the caller owns: uploads are imported without a copy.
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view text) {
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

// Records the first parse error of a JSON document and accepts everything else.
struct ErrorOnlySax {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(nlohmann::json::number_integer_t) { return true; }
  bool number_unsigned(nlohmann::json::number_unsigned_t) { return true; }
  bool number_float(nlohmann::json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  template <typename Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    what = ex.what();
    return false;
  }
  std::string what;
};

Status JsonError(const std::string& name, const std::string& text) {
  ErrorOnlySax sax;
  nlohmann::json::sax_parse(text, &sax);
  std::string message = sax.what;
  if (auto bracket = message.find("] "); bracket != std::string::npos) {
    message = message.substr(bracket + 2);
  }
  int line = 0;
  if (auto at = message.find("at line "); at != std::string::npos) {
    std::sscanf(message.c_str() + at, "at line %d", &line);
  }
  return BadInput(name, line, "not valid JSON: " + message);
}

bool HasField(const std::vector<std::string_view>& fields, std::string_view wanted) {
  for (std::string_view f : fields) {
    if (text::Trim(f) == wanted) return true;
  }
  return false;
}

// Whether `line` reads as one `perf stat -x` record (count, unit, event, ...).
bool LooksLikePerfCsv(std::string_view line) {
  std::vector<std::string_view> f;
  std::string scratch;
  for (char sep : {',', ';', '\t', '|'}) {
    if (line.find(sep) == std::string_view::npos) continue;
    text::SplitCsv(line, sep, &f, &scratch);
    auto is_count = [](std::string_view s) {
      s = text::Trim(s);
      return text::ParseNumber(s).ok() || s == "<not counted>" || s == "<not supported>";
    };
    for (size_t i = 0; i + 2 < f.size() && i < 4; ++i) {
      const std::string_view event = text::Trim(f[i + 2]);
      if (is_count(f[i]) && !is_count(f[i + 1]) && !event.empty() && !is_count(event) &&
          event.find(' ') == std::string_view::npos) {
        return true;
      }
    }
  }
  return false;
}

bool HasRole(const std::vector<std::string_view>& fields, columns::Role role) {
  for (std::string_view f : fields) {
    if (columns::Is(std::string(text::Trim(f)), role)) return true;
  }
  return false;
}

// The format of a file whose first data line is `first` (a header for the CSV formats).
std::optional<Format> DetectLine(std::string_view first) {
  using columns::Role;
  std::vector<std::string_view> fields;
  std::string scratch;
  text::SplitCsv(first, ',', &fields, &scratch);
  if (HasField(fields, "Kernel Name")) return Format::kNcu;
  if (HasField(fields, "Name") &&
      (HasField(fields, "Duration(us)") || HasField(fields, "Accelerator Core"))) {
    return Format::kKernelDetails;
  }
  // op_summary names ops; task_time names kernels; op_statistic counts op types.
  const bool timed = HasRole(fields, Role::kDuration) || HasRole(fields, Role::kTotalTime);
  if (HasField(fields, "Op Name") || (HasField(fields, "kernel_name") && timed) ||
      (HasRole(fields, Role::kType) && HasRole(fields, Role::kCount) && timed)) {
    return Format::kMsprof;
  }
  if (LooksLikePerfCsv(first) || internal::LooksLikePerfText(first)) return Format::kPerf;
  return std::nullopt;
}

// Words that hint at each format, for naming the closest one when nothing fits.
struct Hints {
  Format format;
  std::vector<const char*> words;
};

Format Closest(std::string_view line) {
  static const std::vector<Hints> hints = {
      {Format::kMsprof, {"Op Name", "OP Type", "Task Type", "Task Duration", "Block Dim",
                         "aiv_", "aic_", "_ratio", "Stream ID", "Task ID", "Count", "Total Time",
                         "kernel_name", "task_time"}},
      {Format::kKernelDetails, {"Name", "Accelerator Core", "Duration(us)", "Step Id",
                                "Block Num"}},
      {Format::kNcu, {"Kernel Name", "Metric Name", "Metric Value", "Grid Size", "Block Size",
                      "Process ID", "==PROF==", "gpu__", "sm__"}},
      {Format::kPerf, {"task-clock", "cpu-clock", "cycles", "instructions", "msec",
                       "counter stats", "branch", "not supported", "not counted"}},
      {Format::kTimeline, {"traceEvents", "\"ph\"", "\"ts\"", "\"dur\""}},
      {Format::kJson, {"kernels", "cannbot-profile", "duration_us"}},
  };
  Format best = Format::kMsprof;
  int best_hits = 0;
  for (const Hints& h : hints) {
    int hits = 0;
    for (const char* word : h.words) hits += text::ContainsNoCase(line, word) ? 1 : 0;
    if (hits > best_hits) {
      best_hits = hits;
      best = h.format;
    }
  }
  return best;
}

Status Unknown(std::string_view first, int64_t line_number, const std::string& name) {
  std::string start = text::RepairUtf8(first.substr(0, 60));
  return BadInput(name, line_number,
                  "not a profile format cannbot reads (msprof or kernel_details CSV, msprof "
                  "timeline JSON, Nsight Compute CSV, perf stat, cannbot JSON); closest: " +
                      std::string(FormatDescription(Closest(first))) + ", but line " +
                      std::to_string(line_number) + " does not fit it: '" + start + "'");
}

Result<Format> DetectJson(std::string_view head, std::string_view first, const std::string& name) {
  if (first.front() == '{' && first.find("\"counter-value\"") != std::string_view::npos) {
    return Format::kPerf;
  }
  if (head.find("\"cannbot-profile\"") != std::string_view::npos) return Format::kJson;
  if (head.find("\"traceEvents\"") != std::string_view::npos ||
      head.find("\"ph\"") != std::string_view::npos) {
    return Format::kTimeline;
  }
  if (head.find("\"kernels\"") != std::string_view::npos) return Format::kJson;
  return BadInput(name, 0, "a JSON document that is neither cannbot profile JSON (no "
                           "\"kernels\"), a Chrome trace (no \"traceEvents\" or \"ph\"), nor "
                           "perf stat -j output (no \"counter-value\")");
}

Result<Profile> Dispatch(Format format, std::istream& in, const std::string& name,
                         const ImportOptions& options) {
  switch (format) {
    case Format::kMsprof:
    case Format::kKernelDetails: return internal::ImportMsprofCsv(in, name, options);
    case Format::kTimeline: return internal::ImportTimeline(in, name, options);
    case Format::kNcu: return internal::ImportNcuCsv(in, name, options);
    case Format::kPerf: return internal::ImportPerfStat(in, name, options);
    case Format::kJson: return internal::ImportCannbotJson(in, name, options);
    case Format::kMsprofDir:
      return BadInput(name, 0, "msprof_dir reads a directory; this is a file");
    case Format::kAuto: break;
  }
  return Status::Internal("no importer for format auto");
}

std::string ReadHead(std::istream& in) {
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

// Detects (unless forced), imports, and applies the options that hold for every format.
Result<Profile> Import(std::string_view head, const std::function<std::istream&()>& open,
                       const std::string& name, const ImportOptions& options, Format* used) {
  Format format = options.format;
  if (format == Format::kAuto) {
    CANNBOT_ASSIGN_OR_RETURN(format, DetectFormat(head, name));
  } else if (text::Trim(head).empty()) {
    return BadInput(name, 0, "the file is empty");
  } else if (std::string why = text::BinaryReason(head); !why.empty()) {
    return BadInput(name, 0, "not a profile: it looks binary (" + why + ")");
  }
  CANNBOT_ASSIGN_OR_RETURN(Profile profile, Dispatch(format, open(), name, options));
  if (!options.device.empty()) profile.device = options.device;
  if (used != nullptr) *used = format;
  return profile;
}

}  // namespace

namespace internal {

Result<Profile> ImportCannbotJson(std::istream& in, const std::string& name,
                                  const ImportOptions& options) {
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > options.max_document_bytes) {
      return BadInput(name, 0, "larger than " + std::to_string(options.max_document_bytes) +
                                   " bytes; cannbot profile JSON is read whole");
    }
  }
  nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return JsonError(name, text);
  auto profile = Profile::FromJson(document);
  if (!profile.ok()) return BadInput(name, 0, profile.status().message());
  return profile;
}

}  // namespace internal

const char* FormatName(Format format) {
  for (const FormatInfo& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "auto";
}

const char* FormatDescription(Format format) {
  for (const FormatInfo& f : kFormats) {
    if (f.format == format) return f.description;
  }
  return "";
}

Result<Format> ParseFormat(std::string_view name) {
  std::string known;
  for (const FormatInfo& f : kFormats) {
    if (name == f.name) return f.format;
    known += std::string(known.empty() ? "" : ", ") + f.name;
  }
  return Status::InvalidArgument("unknown profile format '" + std::string(name) +
                                 "'; known: " + known);
}

Result<Format> DetectFormat(std::string_view head, const std::string& name) {
  if (text::Trim(head).empty() || head.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return BadInput(name, 0, "the file is empty");
  }
  if (std::string why = text::BinaryReason(head); !why.empty()) {
    return BadInput(name, 0, "not a profile: it looks binary (" + why + ")");
  }
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  std::string_view first;
  int64_t line_number = 0;
  for (size_t pos = 0; pos < head.size();) {
    size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(pos, end - pos);
    ++line_number;
    pos = end + 1;
    if (!internal::IsBannerLine(line)) {
      first = text::Trim(line);
      break;
    }
  }
  if (first.empty()) return BadInput(name, 0, "no profile data, only banner or comment lines");
  // ncu prints the profiled application's output before its header.
  const bool ncu_below = head.find("\"Kernel Name\"") != std::string_view::npos;
  if (first.front() == '{' || first.front() == '[') {
    Result<Format> json = DetectJson(head, first, name);
    return json.ok() || !ncu_below ? json : Result<Format>(Format::kNcu);
  }
  if (auto format = DetectLine(first)) return *format;
  if (ncu_below) return Format::kNcu;
  return Unknown(first, line_number, name);
}

Result<Profile> ImportProfileFile(const std::string& path, const ImportOptions& options,
                                  Format* used) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return Status::NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, error)) {
    if (options.format != Format::kAuto && options.format != Format::kMsprofDir &&
        options.format != Format::kMsprof && options.format != Format::kKernelDetails) {
      return Status::InvalidArgument(path + ": is a directory, not a " +
                                     FormatDescription(options.format) + " file");
    }
    CANNBOT_ASSIGN_OR_RETURN(Profile profile, internal::ImportMsprofDirectory(path, options));
    if (!options.device.empty()) profile.device = options.device;
    if (used != nullptr) *used = Format::kMsprofDir;
    return profile;
  }
  std::ifstream probe(path, std::ios::binary);
  if (!probe) return Status::IoError(path + ": cannot open for reading");
  const std::string head = ReadHead(probe);
  std::unique_ptr<std::ifstream> in;
  auto open = [&]() -> std::istream& {
    in = std::make_unique<std::ifstream>(path, std::ios::binary);
    return *in;
  };
  return Import(head, open, path, options, used);
}

Result<Profile> ImportProfileText(std::string_view text, const std::string& name,
                                  const ImportOptions& options, Format* used) {
  ViewBuffer buffer(text);
  std::istream in(&buffer);
  auto open = [&]() -> std::istream& { return in; };
  return Import(text.substr(0, kHeadBytes), open, name, options, used);
}

}  // namespace cannbot::profile
