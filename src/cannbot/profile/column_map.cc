#include "cannbot/profile/column_map.h"

#include "cannbot/profile/metric_names.h"

namespace cannbot::profile::columns {
namespace {

struct RoleAliases {
  Role role;
  std::vector<const char*> names;
};

// op_summary (every CANN version), kernel_details (PyTorch adapter), task_time (CANN 8+),
// op_statistic (per op type). Older op_summary writes units without "(us)".
const std::vector<RoleAliases>& AliasTable() {
  static const std::vector<RoleAliases> table = {
      {Role::kName, {"Op Name", "Name", "kernel_name", "Kernel Name", "op_name"}},
      {Role::kType, {"OP Type", "Op Type", "Type", "op_type"}},
      {Role::kCore, {"Task Type", "Accelerator Core", "Core Type", "kernel_type", "task_type"}},
      {Role::kDuration,
       {"Task Duration(us)", "Duration(us)", "task_time(us)", "Task Duration", "Duration",
        "task_duration(us)"}},
      {Role::kTotalTime, {"Total Time(us)", "Total Time", "total_time(us)"}},
      {Role::kAvgTime, {"Avg Time(us)", "Avg Time", "avg_time(us)"}},
      {Role::kCount, {"Count", "count"}},
      {Role::kBlockDim, {"Block Dim", "Block Num", "block_dim", "Block Dim(Block Num)"}},
      {Role::kMixBlockDim, {"Mix Block Dim", "Mix Block Num", "mix_block_dim"}},
      {Role::kShapes, {"Input Shapes", "input_shapes"}},
      {Role::kDtypes, {"Input Data Types", "input_data_types"}},
  };
  return table;
}

}  // namespace

const std::vector<const char*>& Aliases(Role role) {
  for (const RoleAliases& r : AliasTable()) {
    if (r.role == role) return r.names;
  }
  static const std::vector<const char*> none;
  return none;
}

int Find(const std::vector<std::string>& header, Role role) {
  for (const char* name : Aliases(role)) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
  }
  return -1;
}

bool Is(const std::string& field, Role role) {
  for (const char* name : Aliases(role)) {
    if (field == name) return true;
  }
  return false;
}

const std::vector<PmuSpec>& PmuSpecs() {
  namespace m = metric;
  // Base names: "mac" is the cube unit on every generation ("cube" in the arithmetic
  // utilisation metric set); "vec" the vector unit.
  static const std::vector<PmuSpec> specs = {
      {m::kMacRatio, "ratio", Combine::kFirst, {"mac_ratio", "cube_ratio"}},
      {m::kVecRatio, "ratio", Combine::kFirst, {"vec_ratio", "vector_ratio"}},
      {m::kScalarRatio, "ratio", Combine::kFirst, {"scalar_ratio"}},
      {m::kMte1Ratio, "ratio", Combine::kFirst, {"mte1_ratio"}},
      {m::kMte2Ratio, "ratio", Combine::kFirst, {"mte2_ratio"}},
      {m::kMte3Ratio, "ratio", Combine::kFirst, {"mte3_ratio"}},
      {m::kFixpipeRatio, "ratio", Combine::kFirst, {"fixpipe_ratio"}},
      {m::kIcacheMissRate, "ratio", Combine::kFirst, {"icache_miss_rate"}},
      {m::kTotalCycles, "cycles", Combine::kFirst, {"total_cycles"}},
      {m::kBankConflictRate, "ratio", Combine::kMax,
       {"vec_bank_cflt_ratio", "vec_bankgroup_cflt_ratio"}},
      {m::kL2HitRate, "ratio", Combine::kFirst,
       {"l2_cache_hit_rate", "l2_hit_rate", "Hit Rate", "hit_rate"}},
      {m::kL2VictimRate, "ratio", Combine::kFirst, {"Victim Rate", "victim_rate"}},
      {m::kMemoryBandwidth, "GB/s", Combine::kSum,
       {"main_mem_read_bw(GB/s)", "main_mem_write_bw(GB/s)"}},
      {m::kCubeUtilization, "ratio", Combine::kFirst, {"cube_utilization(%)"}},
      {m::kTaskWaitUs, "us", Combine::kFirst,
       {"Task Wait Time(us)", "Wait Time(us)", "Task Wait Time"}},
  };
  return specs;
}

const std::vector<const char*>& CorePrefixes() {
  static const std::vector<const char*> prefixes = {"aic_", "", "aiv_"};
  return prefixes;
}

}  // namespace cannbot::profile::columns
