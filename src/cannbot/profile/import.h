// Profile import: turns what a profiler wrote into the canonical Profile.
//
// Formats (docs/profiles.md has one example each):
//   msprof          Ascend msprof op_summary_*.csv (every metric-name generation),
//                   task_time_*.csv, op_statistic_*.csv and the l2_cache_*.csv companion
//   msprof_dir      an msprof output directory: its CSVs found and joined per op
//   kernel_details  the Ascend PyTorch adapter's kernel_details.csv
//   timeline        msprof's Chrome-trace JSON (msprof_*.json)
//   ncu             Nsight Compute --csv, details (long) and raw (wide) pages
//   perf            Linux perf stat: the plain report (also -r and -I), -x SEP and -j
//   json            cannbot profile JSON (Profile::ToJson)
// The format is detected from the content, never from the file name, unless forced.
//
// Files are streamed: CSV and line formats are read one line at a time and only per-kernel
// aggregates are kept (launches of one kernel are folded into one KernelProfile with summed
// time and launch-weighted mean metrics); the timeline is parsed event by event. Bad input
// gives InvalidArgument naming the file, the line and the problem; rows that cannot be used
// are skipped and the profile's notes say what was skipped and where.
//
// Thread-safety: pure functions; imports may run concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "cannbot/profile/profile.h"
#include "cannbot/util/status.h"

namespace cannbot::profile {

enum class Format { kAuto, kMsprof, kKernelDetails, kTimeline, kNcu, kPerf, kJson, kMsprofDir };

// "msprof", "kernel_details", "timeline", "ncu", "perf", "json", "msprof_dir" ("auto" for
// kAuto).
const char* FormatName(Format format);
// For people: "msprof op_summary CSV".
const char* FormatDescription(Format format);
// Inverse of FormatName; InvalidArgument listing the known names otherwise.
Result<Format> ParseFormat(std::string_view name);

struct ImportOptions {
  Format format = Format::kAuto;
  // Device name to record (e.g. "Ascend910B3"), for formats that do not carry one; it
  // replaces whatever the file says. The diagnosis derives core counts from it.
  std::string device;
  // Name of the single kernel of formats that measure a whole program (perf stat);
  // "" = the file name without directory and extension.
  std::string kernel_name;
  // Distinct kernels kept; rows of further kernels are skipped with a note.
  size_t max_kernels = 500000;
  // Whole-document formats (cannbot JSON) are read into memory up to this size.
  size_t max_document_bytes = size_t{256} << 20;
};

// Detects the format from the first bytes of a file. `name` is used in error messages only.
// When nothing fits, the error names the closest format and the first line that did not fit.
Result<Format> DetectFormat(std::string_view head, const std::string& name);

// Imports a file, or an msprof output directory (kMsprofDir). `used`, when given, receives
// the format that was read.
Result<Profile> ImportProfileFile(const std::string& path, const ImportOptions& options,
                                  Format* used = nullptr);
// Imports text held in memory (an upload); `name` stands for the file in messages.
Result<Profile> ImportProfileText(std::string_view text, const std::string& name,
                                  const ImportOptions& options, Format* used = nullptr);

}  // namespace cannbot::profile
