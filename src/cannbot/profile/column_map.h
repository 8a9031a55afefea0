// The one table of profiler column names: every spelling msprof (op_summary, op_statistic,
// task_time, l2_cache) and the PyTorch adapter (kernel_details) have used for a column,
// across CANN versions and device families, mapped onto one role or canonical metric.
//
// Why one table: the same quantity is "Task Duration(us)" in op_summary, "Duration(us)" in
// kernel_details and "task_time(us)" in task_time; block dims are "Block Dim" or "Block Num";
// pipeline ratios carry an "aic_" (cube core), "aiv_" (vector core) or no prefix depending
// on the chip. Importers and format detection ask this table, never spell names themselves.
//
// Thread-safety: immutable static data; pure functions.
#pragma once

#include <string>
#include <vector>

namespace cannbot::profile::columns {

// What a column means to the importer.
enum class Role {
  kName,         // the kernel (op instance) name
  kType,         // the op type ("DepthwiseConv2D")
  kCore,         // where it ran ("AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", ...)
  kDuration,     // time of one launch, us
  kTotalTime,    // time of all launches, us (op_statistic)
  kAvgTime,      // mean time of one launch, us (op_statistic)
  kCount,        // launches folded into the row (op_statistic)
  kBlockDim,
  kMixBlockDim,  // blocks of the second core type of a MIX task
  kShapes,
  kDtypes,
};

// The spellings of a role, preferred first.
const std::vector<const char*>& Aliases(Role role);
// The index of the first column of `header` that spells `role`, or -1.
int Find(const std::vector<std::string>& header, Role role);
// Whether `field` (trimmed) spells `role`.
bool Is(const std::string& field, Role role);

// How one metric's columns combine when several of its base names are present.
enum class Combine { kFirst, kMax, kSum };

// A canonical metric and the column names (without an aic_/aiv_ prefix) it is read from.
struct PmuSpec {
  const char* metric;
  const char* unit;
  Combine combine;
  std::vector<const char*> bases;
};

// Every PMU metric msprof writes that the diagnosis reads.
const std::vector<PmuSpec>& PmuSpecs();
// The core prefixes a PMU base name may carry, in no particular order.
const std::vector<const char*>& CorePrefixes();

}  // namespace cannbot::profile::columns
