// Importer for an msprof output directory (`cannbot diagnose PROF_DIR`): finds the summary
// CSVs msprof wrote and joins them per op into one Profile.
//
// Where they are: msprof (CANN 7+) writes them under mindstudio_profiler_output/, older
// versions under device_N/summary/, the PyTorch adapter under ASCEND_PROFILER_OUTPUT/; a
// user may hand over the PROF_* directory, its parent, or the output folder itself, so one
// level of PROF_*/ and device_*/ nesting is searched. Which table leads: op_summary (per
// launch, with pipeline ratios) over kernel_details over task_time (timing only) over
// op_statistic (per op type). Files of the leading kind (slices, devices) are folded
// together; l2_cache rows join the leading kernels by op name and add the metrics they lack.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cannbot/profile/importers.h"

namespace cannbot::profile::internal {
namespace {

namespace fs = std::filesystem;

// The msprof tables, in order of preference as the leading table.
enum class CsvKind { kOpSummary, kKernelDetails, kTaskTime, kOpStatistic, kL2Cache, kNone };

constexpr const char* kKindPrefixes[] = {"op_summary", "kernel_details", "task_time",
                                         "op_statistic", "l2_cache"};

CsvKind KindOfFile(const fs::path& file) {
  const std::string name = file.filename().string();
  if (file.extension() != ".csv") return CsvKind::kNone;
  for (size_t k = 0; k < std::size(kKindPrefixes); ++k) {
    if (name.rfind(kKindPrefixes[k], 0) == 0) return static_cast<CsvKind>(k);
  }
  return CsvKind::kNone;
}

bool StartsWith(const fs::path& dir, const char* prefix) {
  return dir.filename().string().rfind(prefix, 0) == 0;
}

// The folders that may hold summary CSVs: `root` and its known output folders, and the
// same below each PROF_*/ and device_*/ child (one level).
std::vector<fs::path> CandidateDirs(const fs::path& root) {
  auto outputs = [](const fs::path& d) {
    return std::vector<fs::path>{d, d / "mindstudio_profiler_output", d / "ASCEND_PROFILER_OUTPUT",
                                 d / "summary"};
  };
  std::vector<fs::path> dirs = outputs(root);
  std::error_code error;
  std::vector<fs::path> children;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory(error)) children.push_back(entry.path());
  }
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) {
    if (!StartsWith(child, "PROF_") && !StartsWith(child, "device_")) continue;
    for (const fs::path& d : outputs(child)) dirs.push_back(d);
    if (!StartsWith(child, "PROF_")) continue;
    for (const auto& entry : fs::directory_iterator(child, error)) {
      if (entry.is_directory(error) && StartsWith(entry.path(), "device_")) {
        dirs.push_back(entry.path() / "summary");
      }
    }
  }
  return dirs;
}

// The CSVs found, by kind, in a stable order.
std::map<CsvKind, std::vector<fs::path>> FindCsvs(const fs::path& root) {
  std::map<CsvKind, std::vector<fs::path>> found;
  std::error_code error;
  for (const fs::path& dir : CandidateDirs(root)) {
    if (!fs::is_directory(dir, error)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      if (entry.is_regular_file(error)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const CsvKind kind = KindOfFile(f);
      if (kind != CsvKind::kNone) found[kind].push_back(f);
    }
  }
  return found;
}

// Launch-weighted mean of a metric measured on `a_launches` and `b_launches` launches.
void MergeMetrics(const KernelProfile& from, KernelProfile* into) {
  for (const auto& [name, metric] : from.metrics) {
    auto it = into->metrics.find(name);
    if (it == into->metrics.end()) {
      into->metrics.emplace(name, metric);
      continue;
    }
    const double a = static_cast<double>(into->launches);
    const double b = static_cast<double>(from.launches);
    if (a + b > 0) it->second.value = (it->second.value * a + metric.value * b) / (a + b);
  }
}

// Folds another file of the leading kind (a slice, another device) into `base`.
void Fold(Profile&& other, Profile* base) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < base->kernels.size(); ++i) index[base->kernels[i].name] = i;
  for (KernelProfile& k : other.kernels) {
    auto it = index.find(k.name);
    if (it == index.end()) {
      index[k.name] = base->kernels.size();
      base->kernels.push_back(std::move(k));
      continue;
    }
    KernelProfile& into = base->kernels[it->second];
    MergeMetrics(k, &into);
    into.launches += k.launches;
    into.duration_us += k.duration_us;
    if (k.block_dim && (!into.block_dim || *k.block_dim > *into.block_dim)) {
      into.block_dim = k.block_dim;
    }
  }
}

// Adds the metrics of a companion table (l2_cache) to the kernels of the same name.
// Returns how many kernels matched.
size_t Join(const Profile& companion, Profile* base) {
  size_t matched = 0;
  for (const KernelProfile& c : companion.kernels) {
    for (KernelProfile& k : base->kernels) {
      if (k.name != c.name) continue;
      for (const auto& [name, metric] : c.metrics) k.metrics.emplace(name, metric);
      ++matched;
      break;
    }
  }
  return matched;
}

std::string Relative(const fs::path& file, const fs::path& root) {
  std::error_code error;
  fs::path rel = fs::relative(file, root, error);
  return error || rel.empty() ? file.string() : rel.string();
}

// Imports one CSV, prefixing its notes with its name.
Result<Profile> ImportOne(const fs::path& file, const fs::path& root,
                          const ImportOptions& options) {
  ImportOptions one = options;
  one.format = Format::kMsprof;
  CANNBOT_ASSIGN_OR_RETURN(Profile p, ImportProfileFile(file.string(), one));
  for (std::string& note : p.notes) note = Relative(file, root) + ": " + note;
  return p;
}

}  // namespace

Result<Profile> ImportMsprofDirectory(const std::string& path, const ImportOptions& options) {
  const fs::path root(path);
  std::map<CsvKind, std::vector<fs::path>> found = FindCsvs(root);
  auto lead = std::find_if(found.begin(), found.end(),
                           [](const auto& kv) { return kv.first != CsvKind::kL2Cache; });
  if (lead == found.end()) {
    return BadInput(path, 0, "a directory without msprof summary CSVs (op_summary_*, "
                             "kernel_details*, task_time_*, op_statistic_*) in it, in its "
                             "mindstudio_profiler_output/, or one PROF_*/ or device_*/ below");
  }
  Profile profile;
  std::vector<std::string> read;
  for (const fs::path& file : lead->second) {
    CANNBOT_ASSIGN_OR_RETURN(Profile p, ImportOne(file, root, options));
    if (read.empty()) {
      profile = std::move(p);
    } else {
      profile.notes.insert(profile.notes.end(), p.notes.begin(), p.notes.end());
      Fold(std::move(p), &profile);
    }
    read.push_back(Relative(file, root));
  }
  for (const fs::path& file : found[CsvKind::kL2Cache]) {
    auto companion = ImportOne(file, root, options);
    if (!companion.ok()) {
      profile.notes.push_back("ignored " + Relative(file, root) + ": " +
                              companion.status().message());
      continue;
    }
    const size_t matched = Join(*companion, &profile);
    read.push_back(Relative(file, root) + " (joined to " + std::to_string(matched) + " ops)");
  }
  std::string list;
  for (const std::string& r : read) list += (list.empty() ? "" : ", ") + r;
  profile.notes.insert(profile.notes.begin(), "msprof directory: read " + list);
  for (const auto& [kind, files] : found) {
    if (kind == lead->first || kind == CsvKind::kL2Cache) continue;
    profile.notes.push_back("not needed: " + std::to_string(files.size()) + " " +
                            kKindPrefixes[static_cast<size_t>(kind)] + " file(s); " +
                            kKindPrefixes[static_cast<size_t>(lead->first)] +
                            " has the same kernels in more detail");
  }
  return profile;
}

}  // namespace cannbot::profile::internal
