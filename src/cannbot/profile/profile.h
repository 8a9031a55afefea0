// Profile: cannbot's canonical model of what a profiler measured ("cannbot profile JSON").
//
// Every importer (msprof op_summary CSV, PyTorch kernel_details CSV, msprof Chrome-trace JSON,
// Nsight Compute CSV, perf stat, cannbot JSON) produces this model, and the CPU self-profiler
// too; the diagnosis reads only this. Metrics use canonical names (profile/metric_names.h)
// with explicit units, so "vec_ratio 0.35" means the same whichever tool measured it.
// The JSON form is documented in docs/profiles.md and docs/profile.schema.json; ToJson and
// FromJson round-trip exactly (FromJson(ToJson(p)) == p).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/util/status.h"

namespace cannbot::profile {

// The "format" marker and version written by ToJson.
inline constexpr const char* kJsonFormat = "cannbot-profile";
inline constexpr int kJsonVersion = 1;

struct Metric {
  Metric(double value_ = 0, std::string unit_ = "", std::string note_ = "")
      : value(value_), unit(std::move(unit_)), note(std::move(note_)) {}

  double value = 0;
  std::string unit;  // "ratio" (0..1), "GB/s", "GFLOP/s", "us", "cycles", "count", "flop/byte"
  // What the value refers to, in words, when a number alone does not say it (the self-profile:
  // "the loop at line 9 is not vectorised: the call to expf blocks it"); "" for most metrics.
  std::string note;

  bool operator==(const Metric&) const = default;
};

struct KernelProfile {
  std::string name;       // as the tool named it (op instance or kernel function)
  std::string type;       // op type when the tool knows it ("DepthwiseConv2D")
  std::string core_type;  // "AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "AI_CPU", "GPU", "CPU"
  int64_t launches = 0;   // how many launches were folded into this entry
  double duration_us = 0; // total time over all launches
  std::optional<int64_t> block_dim;  // Ascend block dim / GPU blocks in the grid
  std::string grid;       // launch geometry as the tool wrote it ("(80, 1, 1)")
  std::string block;
  std::string input_shapes;  // as written ("1,64,112,112;64,1,3,3")
  std::string input_dtypes;  // as written ("FLOAT16;FLOAT16"), when the tool says
  std::map<std::string, Metric> metrics;  // canonical name -> value (launch-weighted mean)

  const Metric* Find(const std::string& name) const;
  // Mean time of one launch (duration_us itself when launches is 0 or 1).
  double MeanLaunchUs() const;
  bool operator==(const KernelProfile&) const = default;
};

struct Profile {
  std::string source_tool;  // "msprof", "kernel_details", "msprof-timeline", "ncu", "perf",
                            // "cannbot", "self-profile"
  std::string device;       // "Ascend910B", "NVIDIA A100", "x86-64 CPU", "" if unknown
  std::vector<KernelProfile> kernels;
  std::vector<std::string> notes;  // what an importer skipped or assumed, for people

  nlohmann::json ToJson() const;
  // Validates as it reads: a wrong type or a missing required field is InvalidArgument naming
  // the JSON path ("kernels[2].metrics.vec_ratio.value: expected a number").
  static Result<Profile> FromJson(const nlohmann::json& json);
  // The kernel named `name` (exact, else unique substring), or, with an empty name, the one
  // with the most total time. `why` says which was picked and why. Communication tasks are
  // only picked by name (they are not kernels anyone can rewrite). NotFound when nothing
  // matches, InvalidArgument when a substring is ambiguous or the profile has no kernels.
  Result<const KernelProfile*> Pick(const std::string& name, std::string* why) const;
  double TotalDurationUs() const;
  bool operator==(const Profile&) const = default;
};

}  // namespace cannbot::profile
