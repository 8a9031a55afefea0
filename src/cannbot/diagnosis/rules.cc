// The diagnosis rule table: which metric, compared how, against what threshold from which
// source, means which bottleneck, and what usually fixes it. Thresholds come from the domain
// brief (Ascend operator case studies), the vendor's own analysis tools ("vendor advisor",
// "vendor docs"), Nsight Compute's guidance, or are cannbot's own where no source gives one
// ("cannbot heuristic", chosen conservatively and said so in every finding).
#include "cannbot/diagnosis/rules.h"

#include "cannbot/profile/metric_names.h"

namespace cannbot::diagnosis::internal {
namespace {

namespace m = profile::metric;

constexpr const char* kBrief = "domain brief";
constexpr const char* kAdvisor = "vendor advisor";
constexpr const char* kVendorDocs = "vendor docs";
constexpr const char* kNsight = "Nsight Compute guidance";
constexpr const char* kHeuristic = "cannbot heuristic";
constexpr const char* kCompilerReport = "GCC vectorisation report";
constexpr const char* kObjectCode = "the kernel's object code";
constexpr const char* kMxcsr = "MXCSR exception flags";

// Derived facts (facts.cc).
constexpr const char* kMte2OverCompute = "mte2_over_compute";
constexpr const char* kScalarOverCompute = "scalar_over_compute";
constexpr const char* kPipelineSum = "vec_mte2_mte3_sum";
constexpr const char* kMaxPipeline = "max_pipeline_ratio";
constexpr const char* kMaxUtilization = "max_utilization";
constexpr const char* kLaunchUs = "launch_duration_us";
constexpr const char* kBlockDim = "block_dim";
constexpr const char* kInnerAxisBytes = "inner_axis_bytes";
constexpr const char* kCubeKernel = "cube_kernel";
constexpr const char* kCubeFeedOverMac = "cube_feed_over_mac";
constexpr const char* kCoreCountAtLeast = "core_count_at_least";
constexpr const char* kIdleCoreShare = "idle_core_share";

constexpr Severity kCrit = Severity::kCritical;
constexpr Severity kWarn = Severity::kWarning;
constexpr Severity kInfo = Severity::kInfo;

// A matrix unit this busy makes the kernel compute-bound whatever else is busy.
const Condition kCubeSaturated{m::kMacRatio, Cmp::kGreaterEqual, 0.8, kAdvisor};
const Condition kVectorSaturated{m::kVecRatio, Cmp::kGreaterEqual, 0.7, kAdvisor};
const Condition kCubeDoesTheWork{m::kMacRatio, Cmp::kGreaterEqual, 0.5, kHeuristic};
// The kernel's work runs on the cube unit (facts.cc: by its ratios, else its op type and
// core). A cube kernel's vector unit idles by design, so the vector rules stand down for it.
const Condition kIsCube{kCubeKernel, Cmp::kGreaterEqual, 1, kHeuristic};
// Only cube kernels have this fact: the copies feeding the cube busier than the cube.
const Condition kCubeWaitsForFeed{kCubeFeedOverMac, Cmp::kGreater, 1.0, kHeuristic};
// Concrete causes a CPU self-profile can show.
// Nearly all of the object's floating-point arithmetic scalar (a static count: a vector loop
// with a scalar tail has a large scalar share, so only the extreme says "not vectorised").
const Condition kScalarCode{m::kScalarFpShare, Cmp::kGreaterEqual, 0.9, kObjectCode};
const Condition kLibraryMath{m::kMathCalls, Cmp::kGreaterEqual, 1, kObjectCode};
const Condition kSubnormalTrap{m::kSubnormalSlowdown, Cmp::kGreaterEqual, 1.5, kHeuristic};

}  // namespace

const std::vector<BottleneckInfo>& Bottlenecks() {
  static const std::vector<BottleneckInfo> table = {
      {kMemoryBound, "memory-bandwidth bound",
       {"Double-buffer: prefetch tile N+1 while computing tile N, so copies overlap compute.",
        "Cut memory traffic: fuse neighbouring ops and keep intermediates in on-chip memory "
        "(worth it when fusion removes more than 30% of the traffic).",
        "Use bigger tiles so each byte loaded from global memory is reused more often."},
       "needs compute_utilization, or mte2_ratio with mac_ratio/vec_ratio, or "
       "memory_utilization"},
      {kCacheMisses, "cache misses / bank conflicts",
       {"Use bigger tiles and reorder the loops so consecutive accesses are contiguous (for an "
        "NCHW depthwise convolution: HW, then C, then KH/KW).",
        "Avoid strides of 64 or 128 elements; pad and align buffers to break bank conflicts."},
       "needs l2_hit_rate, l1_hit_rate, cache_miss_rate or bank_conflict_rate"},
      {kLowVectorization, "too little vectorisation",
       {"Vectorise the innermost axis: load and compute whole vectors (e.g. 16-element blocks, "
        "256 bytes per vector repeat) instead of one element at a time.",
        "Merge contiguous dimensions so the inner loop is long and contiguous."},
       "needs vec_ratio or scalar_ratio"},
      {kControlFlow, "redundant control flow",
       {"Hoist conditions and index arithmetic out of the inner loops; replace data-dependent "
        "branches with min/max/select.",
        "Peel the tail into its own loop so the main loop is branch-free."},
       "needs branch_miss_rate or scalar_ratio"},
      {kLayoutMismatch, "data-layout mismatch",
       {"Keep one layout end to end (e.g. NC1HWC0 with C0 = 16 for the cube unit) instead of "
        "transposing between ops.",
        "Fuse the layout transform into its producer or consumer; pad the inner axis to a "
        "multiple of 256 bytes (copies want 32-byte alignment)."},
       "needs a profile with several ops (for the share of layout transforms) or the input "
       "shapes and data types of a matrix op"},
      {kLatencyBound, "latency-bound (bound by nothing)",
       {"Expose more parallelism: more blocks per launch or larger tiles, so every pipeline "
        "has work queued.",
        "Pipeline in software: issue asynchronous copies early and overlap them with compute.",
        "Fuse small ops to amortise launch and synchronisation overhead."},
       "needs two or more pipeline ratios, or compute and memory utilisation, or a roofline "
       "fraction"},
      {kCoreImbalance, "core-count imbalance",
       {"Choose the block dim as a multiple of the core count, or split the work so the last "
        "wave keeps every core busy.",
        "Spread the tail evenly over all cores instead of leaving it to a few."},
       "needs the block dim and the core count (name the device, e.g. --device Ascend910B3, "
       "add a core_count metric, or profile it with other kernels whose largest block dim "
       "bounds the core count)"},
      {kSerializedPipelines, "pipelines serialised (no double buffering)",
       {"Double-buffer so copy-in (MTE2), vector compute and copy-out (MTE3) overlap instead of "
        "running one after another.",
        "Split the tile loop into stages with asynchronous copies (software pipelining)."},
       "needs vec_ratio, mte2_ratio and mte3_ratio"},
      {kComputeBound, "compute-bound",
       {"The arithmetic unit is the limit: remove work (fold constants, e.g. BatchNorm into "
        "the convolution weights; skip padding zeros).",
        "Move the work to the matrix unit or to a lower precision (fp16/bf16) where the "
        "tolerance allows.",
        "Moving data faster will not help much here; doing less arithmetic will."},
       "needs mac_ratio, vec_ratio or compute_utilization"},
      {kCubeStarved, "cube unit starved (L1/L0 feeding)",
       {"Tile for L1 and L0: choose base blocks M/N/K that fill L0A/L0B (64 KB each) and L0C "
        "(128 KB), e.g. 128x256x64 in fp16, so each operand copied in feeds more MMADs.",
        "Double-buffer the cube's operands: ping-pong the A and B tiles in L1 and in L0A/L0B so "
        "the MTE2 (global -> L1) and MTE1 (L1 -> L0) copies overlap the MMADs.",
        "Keep larger K slices resident in L1 (512 KB) and reuse them across the N (or M) "
        "blocks, so MTE2 reloads less from global memory; align M, N and K to 16 (the cube's "
        "16x16x16 fractal)."},
       "needs mac_ratio with mte1_ratio or mte2_ratio of a kernel that runs on the cube unit"},
      {kSubnormalNumbers, "subnormal numbers (microcode assists)",
       {"Keep every intermediate a normal number: clamp exp arguments at -87 (fp32), write "
        "results that would fall below FLT_MIN (1.2e-38) as 0 before the multiply that makes "
        "them, keep tiny values away from squares that underflow.",
        "Or set flush-to-zero and denormals-are-zero (MXCSR) when the kernel starts and restore "
        "the caller's state before it returns: within any tolerance, subnormals are below "
        "1.2e-38."},
       "needs a self-profile on a CPU (subnormal_results, subnormal_slowdown)"},
  };
  return table;
}

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> table = {
      // --- memory-bandwidth bound
      {kMemoryBound, kCrit, {m::kComputeUtilization, Cmp::kLess, 0.30, kBrief}, {},
       {kCubeSaturated, kVectorSaturated,
        {m::kRooflineFraction, Cmp::kLess, 0.30, kHeuristic}},
       "Compute units are busy only {compute_utilization} of the time: the kernel waits for "
       "data."},
      // On a cube kernel a busy MTE2 starves the cube: cube_starved says so, with the cube's
      // remedies; only the advisor's matrix threshold (mte2 >= 95%) still calls it memory-bound.
      {kMemoryBound, kCrit, {kMte2OverCompute, Cmp::kGreater, 1.0, kVendorDocs}, {},
       {kCubeSaturated, kIsCube},
       "Copy-in from global memory (MTE2) is busier than the compute units "
       "({mte2_over_compute}): the kernel waits for data."},
      {kMemoryBound, kCrit, {m::kMte2Ratio, Cmp::kGreaterEqual, 0.95, kAdvisor}, {},
       {kCubeSaturated},
       "Copy-in from global memory (MTE2) is busy {mte2_ratio} of the time."},
      {kMemoryBound, kWarn, {m::kMte2Ratio, Cmp::kGreaterEqual, 0.7, kAdvisor}, {},
       {kCubeSaturated, kIsCube},
       "Copy-in from global memory (MTE2) is busy {mte2_ratio} of the time: it is the bound."},
      {kMemoryBound, kCrit, {m::kMemoryUtilization, Cmp::kGreaterEqual, 0.6, kNsight},
       {{m::kComputeUtilization, Cmp::kLess, 0.6, kNsight}}, {kCubeSaturated},
       "Memory runs at {memory_utilization} of its peak while compute reaches only "
       "{compute_utilization}."},
      // --- cache misses / bank conflicts
      {kCacheMisses, kWarn, {m::kL2HitRate, Cmp::kLess, 0.85, kBrief}, {}, {},
       "Only {l2_hit_rate} of L2 accesses hit: strided or scattered accesses refetch data."},
      {kCacheMisses, kWarn, {m::kBankConflictRate, Cmp::kGreater, 0.05, kAdvisor}, {}, {},
       "Bank conflicts stall the vector unit {bank_conflict_rate} of the time."},
      {kCacheMisses, kInfo, {m::kCacheMissRate, Cmp::kGreater, 0.2, kHeuristic}, {}, {},
       "{cache_miss_rate} of cache references miss."},
      {kCacheMisses, kInfo, {m::kL1HitRate, Cmp::kLess, 0.5, kHeuristic}, {}, {},
       "Only {l1_hit_rate} of L1 accesses hit."},
      // --- too little vectorisation (never for a cube kernel: its vector unit idles by design)
      {kLowVectorization, kWarn, {m::kVecRatio, Cmp::kLess, 0.5, kBrief}, {},
       {kCubeDoesTheWork, kIsCube},
       "The vector unit is busy only {vec_ratio} of the time: work runs element by element."},
      {kLowVectorization, kInfo, {m::kVecRatio, Cmp::kLess, 0.9, kBrief}, {},
       {kCubeDoesTheWork, kVectorSaturated, kIsCube},
       "The vector unit is busy {vec_ratio} of the time, below the 90% a tuned vector op "
       "reaches."},
      {kLowVectorization, kWarn, {m::kScalarRatio, Cmp::kGreaterEqual, 0.5, kHeuristic},
       {{m::kVecRatio, Cmp::kLess, 0.5, kBrief}}, {kIsCube},
       "The scalar unit is busy {scalar_ratio} of the time while the vector unit idles."},
      // CPU kernels without counters: what GCC's vectorisation report and the object code say.
      {kLowVectorization, kCrit, {m::kVectorizedLoopShare, Cmp::kLess, 1.0, kCompilerReport},
       {kScalarCode}, {},
       "The compiler left the kernel's arithmetic scalar ({scalar_fp_share} of its "
       "floating-point instructions): {vectorized_loop_share.note}."},
      {kLowVectorization, kWarn, {m::kVectorizedLoopShare, Cmp::kLess, 1.0, kCompilerReport}, {},
       {kScalarCode},
       "Not every loop of the kernel is vectorised: {vectorized_loop_share.note}."},
      {kLowVectorization, kWarn, {m::kMathCalls, Cmp::kGreaterEqual, 1, kObjectCode}, {}, {},
       "The kernel calls {math_calls.note} from the C math library: one scalar call per "
       "element, which keeps its loop scalar."},
      // --- redundant control flow
      {kControlFlow, kWarn, {m::kBranchMissRate, Cmp::kGreater, 0.05, kHeuristic}, {}, {},
       "{branch_miss_rate} of branches are mispredicted."},
      {kControlFlow, kWarn, {m::kScalarRatio, Cmp::kGreaterEqual, 0.7, kAdvisor}, {}, {},
       "The scalar unit (control flow, address arithmetic) is busy {scalar_ratio} of the "
       "time: it is the bound."},
      {kControlFlow, kWarn, {kScalarOverCompute, Cmp::kGreater, 1.0, kHeuristic}, {}, {},
       "The scalar unit is busier than the compute units ({scalar_over_compute})."},
      // --- data-layout mismatch
      {kLayoutMismatch, kWarn, {m::kLayoutTransformShare, Cmp::kGreater, 0.1, kHeuristic}, {},
       {}, "Layout transforms (TransData, Transpose) take {layout_transform_share} of the "
           "profile's time."},
      {kLayoutMismatch, kInfo, {kInnerAxisBytes, Cmp::kNotMultipleOf, 256, kAdvisor}, {}, {},
       "The inner axis of the first input is {inner_axis_bytes}, not a multiple of 256 bytes: "
       "copies are misaligned."},
      // --- latency-bound
      // Busy pipelines that merely take turns are serialised, not latency-bound; a cube that
      // waits for busier feeding copies is starved, not latency-bound.
      {kLatencyBound, kWarn, {kMaxPipeline, Cmp::kLessEqual, 0.8, kAdvisor},
       {{kLaunchUs, Cmp::kGreaterEqual, 20, kAdvisor}},
       {{kPipelineSum, Cmp::kGreaterEqual, 0.9, kAdvisor}, kCubeWaitsForFeed},
       "No pipeline is busy more than {max_pipeline_ratio} of the time: the kernel waits on "
       "latency, not throughput."},
      // Where the code shows a concrete cause (scalar arithmetic, library calls, subnormals),
      // that is the finding, not "bound by nothing".
      {kLatencyBound, kWarn, {kMaxUtilization, Cmp::kLess, 0.6, kNsight}, {},
       {kScalarCode, kLibraryMath, kSubnormalTrap},
       "Neither compute nor memory reaches 60% of peak (at most {max_utilization}): latency "
       "or too little parallelism limits the kernel."},
      {kLatencyBound, kWarn, {m::kRooflineFraction, Cmp::kLess, 0.3, kHeuristic}, {},
       {kScalarCode, kLibraryMath, kSubnormalTrap},
       "The kernel reaches {roofline_fraction} of this machine's roofline: neither compute "
       "nor bandwidth is the limit."},
      // --- core-count imbalance
      {kCoreImbalance, kWarn,
       {kBlockDim, Cmp::kNotMultipleOf, 0, kAdvisor, m::kCoreCount}, {}, {},
       "A block dim of {block_dim} on {core_count} cores leaves cores idle in the last wave."},
      // Without the exact count, a lower bound (the profile's widest launch on the same kind
      // of core, or the device family's smallest part) still shows a launch far too narrow.
      {kCoreImbalance, kWarn, {kIdleCoreShare, Cmp::kGreaterEqual, 0.5, kHeuristic}, {}, {},
       "Only {block_dim} blocks on a device with at least {core_count_at_least} such cores: "
       "{idle_core_share} of them idle for the whole launch."},
      // --- pipelines serialised
      {kSerializedPipelines, kWarn, {kPipelineSum, Cmp::kGreaterEqual, 0.9, kAdvisor},
       {{kPipelineSum, Cmp::kLessEqual, 1.05, kHeuristic}}, {},
       "Vector, copy-in and copy-out ratios add up to {vec_mte2_mte3_sum}: they run one after "
       "another instead of overlapping."},
      // --- compute-bound
      {kComputeBound, kWarn, kCubeSaturated, {}, {},
       "The matrix unit is busy {mac_ratio} of the time: the kernel is compute-bound."},
      {kComputeBound, kWarn, kVectorSaturated, {}, {kCubeDoesTheWork},
       "The vector unit is busy {vec_ratio} of the time: it is the bound."},
      {kComputeBound, kWarn, {m::kComputeUtilization, Cmp::kGreaterEqual, 0.8, kHeuristic}, {},
       {}, "Compute runs at {compute_utilization} of peak: the kernel is compute-bound."},
      {kComputeBound, kInfo, {m::kComputeUtilization, Cmp::kGreaterEqual, 0.6, kBrief}, {}, {},
       "Compute runs at {compute_utilization} of peak, above the 60% a tuned kernel reaches."},
      // --- cube unit starved
      {kCubeStarved, kCrit, kCubeWaitsForFeed, {kIsCube}, {kCubeSaturated},
       "The cube unit is busy only {mac_ratio} of the time while the copies that feed it are "
       "busier ({cube_feed_over_mac}): the cube waits for its operands."},
      {kCubeStarved, kWarn, {m::kMte1Ratio, Cmp::kGreaterEqual, 0.7, kAdvisor}, {kIsCube},
       {kCubeSaturated},
       "L1 -> L0 copies (MTE1) are busy {mte1_ratio} of the time: the L0A/L0B tiles are "
       "refilled too often for the cube."},
      // --- subnormal numbers
      {kSubnormalNumbers, kCrit, kSubnormalTrap, {}, {},
       "On the op's edge inputs the kernel runs {subnormal_slowdown} as long as with "
       "flush-to-zero: subnormal numbers cost this CPU a microcode assist each."},
      {kSubnormalNumbers, kWarn, {m::kSubnormalResults, Cmp::kGreaterEqual, 1, kMxcsr}, {},
       {kSubnormalTrap},
       "The kernel produces subnormal numbers on the op's edge inputs "
       "({subnormal_results.note}): Intel cores take a microcode assist for each, so it runs "
       "far slower there than the timing on this CPU shows."},
  };
  return table;
}

const std::vector<MetricGroup>& MetricGroups() {
  static const std::vector<MetricGroup> table = {
      {"cube/vector pipeline ratios",
       {m::kMacRatio, m::kVecRatio, m::kScalarRatio, m::kMte1Ratio, m::kMte2Ratio, m::kMte3Ratio},
       {m::kMacRatio, m::kVecRatio, m::kScalarRatio, m::kMte1Ratio, m::kMte2Ratio, m::kMte3Ratio,
        kMte2OverCompute, kScalarOverCompute, kPipelineSum, kMaxPipeline, kCubeFeedOverMac},
       "pipeline rule"},
      {"compute or memory utilisation",
       {m::kComputeUtilization, m::kMemoryUtilization, m::kGflops, m::kMemoryBandwidth,
        m::kDramUtilization, m::kRooflineFraction},
       {m::kComputeUtilization, m::kMemoryUtilization, kMaxUtilization, m::kRooflineFraction},
       "utilisation rule"},
      {"cache or bank-conflict rates",
       {m::kL2HitRate, m::kL1HitRate, m::kCacheMissRate, m::kBankConflictRate},
       {m::kL2HitRate, m::kL1HitRate, m::kCacheMissRate, m::kBankConflictRate},
       "cache rule"},
      {"branch counters", {m::kBranchMissRate}, {m::kBranchMissRate}, "branch rule"},
      {"block dim", {kBlockDim}, {kBlockDim, kIdleCoreShare}, "core-count rule"},
      {"code evidence of a CPU self-profile",
       {m::kVectorizedLoopShare, m::kScalarFpShare, m::kMathCalls, m::kSubnormalResults,
        m::kSubnormalSlowdown},
       {m::kVectorizedLoopShare, m::kScalarFpShare, m::kMathCalls, m::kSubnormalResults,
        m::kSubnormalSlowdown},
       "self-profile rule"},
  };
  return table;
}

}  // namespace cannbot::diagnosis::internal
