// Internals shared by the per-format importers (profile/import.h is the public face):
// the per-kernel Aggregator that folds launches, the Skips log that turns bad rows into a
// few notes, and one entry point per format.
//
// Thread-safety: an Aggregator or Skips belongs to one import.
#pragma once

#include <cstdint>
#include <deque>
#include <istream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cannbot/profile/import.h"
#include "cannbot/profile/profile.h"

namespace cannbot::profile::internal {

// Counts skipped rows by reason, remembering where each reason first happened.
class Skips {
 public:
  void Add(const std::string& reason, int64_t line, const std::string& detail);
  int64_t total() const { return total_; }
  // "line 7: expected 36 fields, found 3", or "" when nothing was skipped.
  std::string First() const;
  // One note per reason: "skipped 12 rows: wrong number of fields (first at line 7: ...)".
  void AppendNotes(std::vector<std::string>* notes) const;

 private:
  struct Entry {
    std::string reason;
    int64_t count = 0;
    int64_t first_line = 0;
    std::string first_detail;
  };
  std::vector<Entry> entries_;
  int64_t total_ = 0;
};

// Folds launches into per-kernel aggregates; memory grows with distinct kernels, not rows.
class Aggregator {
 public:
  struct Entry {
    KernelProfile kernel;       // name, type, geometry; metrics filled by Finish()
    std::vector<double> sum;    // per metric slot
    std::vector<int64_t> count;
    bool block_dim_varies = false;
  };

  explicit Aggregator(size_t max_kernels) : max_kernels_(max_kernels) {}

  // The slot of a canonical metric, registering it on first use.
  int Slot(const std::string& metric, const std::string& unit);
  // The kernel's entry (created on first use, its name repaired to UTF-8 if needed); nullptr
  // when max_kernels distinct kernels are already held. Entries never move.
  Entry* Get(std::string_view name);
  void AddLaunch(Entry* entry, double duration_us) { AddLaunches(entry, 1, duration_us); }
  // `launches` launches that took `total_us` together (a summary row).
  void AddLaunches(Entry* entry, int64_t launches, double total_us);
  void Add(Entry* entry, int slot, double value);
  void SetBlockDim(Entry* entry, int64_t block_dim);
  size_t size() const { return entries_.size(); }
  // The kernels in order of first appearance, with launch-weighted mean metrics.
  std::vector<KernelProfile> Finish(std::vector<std::string>* notes);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Eq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };

  size_t max_kernels_;
  std::vector<std::pair<std::string, std::string>> slots_;  // metric, unit
  std::unordered_map<std::string, size_t, Hash, Eq> index_;
  std::deque<Entry> entries_;
  int64_t repaired_names_ = 0;
  int64_t dropped_kernels_ = 0;
};

// "FILE:LINE: problem" (or "FILE: problem" for line 0).
Status BadInput(const std::string& name, int64_t line, const std::string& problem);

// One importer per format. `name` labels the input in messages.
// msprof op_summary / task_time / op_statistic / l2_cache and kernel_details CSVs.
Result<Profile> ImportMsprofCsv(std::istream& in, const std::string& name,
                                const ImportOptions& options);
Result<Profile> ImportTimeline(std::istream& in, const std::string& name,
                               const ImportOptions& options);
Result<Profile> ImportNcuCsv(std::istream& in, const std::string& name,
                             const ImportOptions& options);
Result<Profile> ImportPerfStat(std::istream& in, const std::string& name,
                               const ImportOptions& options);
// An msprof output directory (msprof_dir.cc): its CSVs found and joined per op.
Result<Profile> ImportMsprofDirectory(const std::string& path, const ImportOptions& options);
Result<Profile> ImportCannbotJson(std::istream& in, const std::string& name,
                                  const ImportOptions& options);

// The first line that is neither blank nor a tool's banner ("==PROF==", "# started on").
bool IsBannerLine(std::string_view line);

// Whether `line` reads as one line of perf stat's default (plain text) output, e.g.
// "  1,873.52 msec task-clock  #  0.999 CPUs utilized" or its -I form with a timestamp.
bool LooksLikePerfText(std::string_view line);

}  // namespace cannbot::profile::internal
