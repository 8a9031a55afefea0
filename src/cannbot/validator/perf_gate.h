// PerfGate: the validator's third layer. Is the candidate measurably faster than the baseline?
//
// Baseline and candidate are each loaded into a fresh runner of their own (a separate
// sandboxed process holding only its own inputs and outputs, so neither can read, patch or
// slow the other), both pinned to the same CPU, and timed in alternating batches (the order
// flips every round, so drift hits both alike) on the op's perf shape. Each batch is timed by the parent's clock (a kernel cannot fake it), minus the
// measured round trip of an empty batch. Each round yields one speedup ratio; the gate
// reports their median with a distribution-free 95% confidence interval and passes only when
// the interval's lower bound clears min_speedup. Rounds stop early once the interval is
// clearly above or below the bar.
//
// The timed data is built so that no shortcut pays (perf_data.h): several data sets, half of
// them "twins" that share every other set's head and tail and differ inside (a cache keyed on
// a cheap fingerprint serves a wrong answer); one buffer position per data set, so a batch
// calls the kernel once per position and never twice on the same inputs; and new inputs in
// every round (drawn afresh from the op's distributions), so no answer can be reused across
// rounds, not even by a cache keyed on the whole input or on structure old data keeps. Round
// 0 checks every output against the reference. Every later round checks that inputs and
// guards are intact, compares the two kernels' outputs at the op's tolerance (at sampled
// elements of every position; in some rounds in full at one) and one position against the
// reference (in some rounds; in one of every two when the baseline is the user's, who may
// have written it with the candidate); which ones is drawn after the calls, so a kernel
// cannot tell a checked call from another. A disagreement is settled by the reference
// and blames the kernel that is wrong; a kernel that stops computing leaves the poison in
// place.
//
// The timed inputs follow the op's realistic distribution (its spec leaves edge values out of
// the perf shape unless it says edges_in_perf). After the timed rounds, both kernels run a few
// batches on the perf shape with the op's edge values put back (edge_check.h): their outputs
// are checked like any timed run's, and the report says how much slower each kernel is there
// and whether it produced subnormal numbers (a trap on Intel cores). That check informs; it
// never rejects a correct kernel.
//
// Thread-safety: run one gate at a time per machine; two timings at once on two cores are
// worthless. The caller serialises.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "cannbot/ops/op_spec.h"
#include "cannbot/profile/profile.h"
#include "cannbot/util/stats.h"
#include "cannbot/validator/edge_check.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/layer.h"
#include "cannbot/validator/machine_model.h"

namespace cannbot::validator {

struct PerfConfig {
  double min_speedup = 1.05;         // the lower 95% bound of the speedup must clear this
  int min_rounds = 10;               // rounds before the early stop may trigger
  int max_rounds = 60;
  double max_seconds = 30;           // time budget for the timed rounds
  int data_sets = 4;                 // distinct inputs per batch (even: half are twins), >= 2
  int edge_rounds = 4;               // batches per kernel on the edge inputs (0: no edge check)
  std::chrono::milliseconds call_timeout{60000};  // for any single batch
  // Set per job by the validator, not configured: the baseline is the op's own reference
  // kernel. Otherwise (a user's baseline) it may be as hostile as the candidate, and agreeing
  // with it proves less, so one round of every two checks a position against the reference.
  bool baseline_is_reference = false;
};

struct KernelTiming {
  double median_seconds = 0;  // per call
  double gbps = 0;            // compulsory bytes / time
  double gflops = 0;
  double roofline_fraction = 0;  // roofline bound / time
  int calls_per_batch = 0;
};

struct PerfReport {
  bool ok = false;
  Layer layer = Layer::kNone;  // kPerf or kSandbox when !ok
  std::string reason;  // one sentence
  std::string shape;   // the perf shape
  double speedup = 0;  // median of per-round baseline/candidate ratios
  Interval speedup_ci; // 95%
  double min_speedup = 0;
  int rounds = 0;
  double channel_overhead_seconds = 0;
  KernelTiming baseline;
  KernelTiming candidate;
  EdgeCheck edges;  // how both kernels fare on the op's edge inputs
  std::string child_output;
  // Targets without the hardware here (ascendc) compare a cost model's estimates instead.
  bool estimated = false;
  std::string device;           // what the estimate is for
  std::string estimate_detail;  // the cost model's breakdown
  // What a profiler would show for the candidate on the perf shape, where the target can say
  // without the hardware (ascendc: the cost model's pipe shares, ascendc/estimated_profile.h).
  std::optional<profile::KernelProfile> candidate_profile;
};

// Errors are the validator's own (cannot start the runner); a misbehaving kernel is a report.
Result<PerfReport> RunPerfGate(const ops::OpSpec& op, const std::string& candidate_object,
                               const std::string& baseline_object, uint64_t seed,
                               const MachineModel& machine, const RunnerConfig& runner,
                               const PerfConfig& config, const std::string& work_dir,
                               const ReferenceOracle* reference = nullptr);

}  // namespace cannbot::validator
