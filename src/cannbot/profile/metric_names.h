// Canonical metric names of the profile model. Importers map each tool's columns onto these;
// the diagnosis rules read only these. Ratios are fractions in [0, 1] (never percentages).
#pragma once

namespace cannbot::profile::metric {

// Pipeline busy ratios of an Ascend AI Core / Vector Core (msprof PipeUtilization).
inline constexpr const char* kMacRatio = "mac_ratio";        // cube (matrix) unit
inline constexpr const char* kVecRatio = "vec_ratio";        // vector unit
inline constexpr const char* kScalarRatio = "scalar_ratio";
inline constexpr const char* kMte1Ratio = "mte1_ratio";      // L1 -> L0
inline constexpr const char* kMte2Ratio = "mte2_ratio";      // global memory -> on-chip
inline constexpr const char* kMte3Ratio = "mte3_ratio";      // on-chip -> global memory
inline constexpr const char* kFixpipeRatio = "fixpipe_ratio";
inline constexpr const char* kCubeUtilization = "cube_utilization";

// Utilisation of the machine's peaks, any device.
inline constexpr const char* kComputeUtilization = "compute_utilization";  // achieved / peak compute
inline constexpr const char* kMemoryUtilization = "memory_utilization";    // achieved / peak bandwidth
inline constexpr const char* kAchievedOccupancy = "achieved_occupancy";
inline constexpr const char* kDramUtilization = "dram_utilization";        // GPU DRAM only

// Caches and control flow.
inline constexpr const char* kL2HitRate = "l2_hit_rate";
inline constexpr const char* kL1HitRate = "l1_hit_rate";
inline constexpr const char* kIcacheMissRate = "icache_miss_rate";
inline constexpr const char* kCacheMissRate = "cache_miss_rate";    // perf cache-misses / references
inline constexpr const char* kBranchMissRate = "branch_miss_rate";  // perf branch-misses / branches
inline constexpr const char* kBankConflictRate = "bank_conflict_rate";
inline constexpr const char* kL2VictimRate = "l2_victim_rate";

// Rates and intensity.
inline constexpr const char* kMemoryBandwidth = "memory_bandwidth";          // GB/s achieved
inline constexpr const char* kPeakMemoryBandwidth = "peak_memory_bandwidth";  // GB/s
inline constexpr const char* kGflops = "gflops";
inline constexpr const char* kPeakGflops = "peak_gflops";
inline constexpr const char* kArithmeticIntensity = "arithmetic_intensity";  // flop/byte
inline constexpr const char* kRooflineFraction = "roofline_fraction";

// Counters.
inline constexpr const char* kTotalCycles = "total_cycles";
inline constexpr const char* kInstructions = "instructions";
inline constexpr const char* kCycles = "cycles";
inline constexpr const char* kIpc = "ipc";
inline constexpr const char* kTaskClockMs = "task_clock_ms";

// Time around the kernel: the wait before each launch (msprof), and the 95% confidence
// interval of a self-profiled median (the duration itself is KernelProfile::duration_us).
inline constexpr const char* kTaskWaitUs = "task_wait_us";
inline constexpr const char* kDurationCiLowUs = "duration_ci95_low_us";
inline constexpr const char* kDurationCiHighUs = "duration_ci95_high_us";

// What a CPU kernel's code and its runs say where no counters exist (the self-profile):
// innermost loops GCC vectorised / all of them (note: the first scalar loop and why); scalar
// floating-point arithmetic / all of it in the object code; library math functions called
// (count, note: which); 1 when the kernel produced subnormal numbers on the op's edge inputs
// (MXCSR flags); its time on those inputs / its time with flush-to-zero and
// denormals-are-zero set.
inline constexpr const char* kVectorizedLoopShare = "vectorized_loop_share";
inline constexpr const char* kScalarFpShare = "scalar_fp_share";
inline constexpr const char* kMathCalls = "math_calls";
inline constexpr const char* kSubnormalResults = "subnormal_results";
inline constexpr const char* kSubnormalSlowdown = "subnormal_slowdown";

// Share of the whole profile's time spent in layout transforms (TransData, Transpose, ...).
inline constexpr const char* kLayoutTransformShare = "layout_transform_share";
// Cores of the device the kernel ran on (for last-wave imbalance), when known.
inline constexpr const char* kCoreCount = "core_count";

}  // namespace cannbot::profile::metric
