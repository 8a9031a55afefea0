// SelfProfile: a Profile of a kernel measured on this CPU, for when the user has no profiler
// output.
//
// The kernel is compiled with the validator's Compiler, loaded into a sandboxed runner and
// called on its op's perf shape: once with fresh inputs, poisoned outputs and guard zones,
// checked against the op's reference (a wrong kernel has no speed worth diagnosing), then
// timed in batches by the parent's clock (median and 95% confidence interval per call, the
// channel's round trip subtracted). From the median and the op's compulsory traffic and
// arithmetic it derives GB/s, GFLOP/s, arithmetic intensity and the place on this machine's
// measured roofline (MachineModel). Hardware counters come from `perf stat` attached to the
// runner during extra batches, when perf exists and the machine has them; in virtual
// machines they are usually "<not supported>" and the profile says so in its notes.
//
// Where counters are missing the code itself is evidence (metric_names.h): GCC's
// vectorisation report and the object's instruction mix (code_report.h: which loop stayed
// scalar and why, library math calls), and a subnormal probe (subnormal_probe.h: the op's
// edge inputs timed with and without flush-to-zero, and the MXCSR flags they raised). The
// diagnosis names the cause from them ("the loop at line 9 is not vectorised: the call to
// expf blocks it") instead of "latency-bound".
//
// Thread-safety: SelfProfile may run from several threads, but two timings at once on a
// small machine disturb each other: callers that care serialise (as the perf gate does).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "cannbot/ops/op_spec.h"
#include "cannbot/profile/profile.h"
#include "cannbot/store/store.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/kernel_runner.h"
#include "cannbot/validator/reference_oracle.h"
#include "cannbot/validator/validator.h"

namespace cannbot::validator {

struct SelfProfileConfig {
  CompilerConfig compiler;
  RunnerConfig runner;
  // Whose outputs the kernel must reproduce before it is timed (borrowed); null: the op's
  // built-in reference.
  const ReferenceOracle* reference = nullptr;
  std::chrono::milliseconds call_timeout{60000};  // any single batch
  double min_batch_seconds = 0.02;  // each timed batch repeats the call at least this long
  int rounds = 15;                  // timed batches (fewer when max_seconds runs out)
  double max_seconds = 5;           // budget for the timed batches
  bool hardware_counters = true;    // try `perf stat` on the runner
  std::string perf_program = "perf";
  double counter_seconds = 0.3;     // how long perf counts
  bool code_report = true;          // vectorisation report and instruction mix (code_report.h)
  bool subnormal_probe = true;      // FTZ/DAZ timing and MXCSR flags (subnormal_probe.h)
  std::optional<uint64_t> seed;     // inputs; none: a fresh seed
};

// Errors: InvalidArgument when the kernel does not compile, crashes, hangs or computes wrong
// numbers (the message says which, in one sentence); IoError/Internal when cannbot itself
// cannot run it. `store` (compile cache, machine model) may be null.
Result<profile::Profile> SelfProfile(const ops::OpSpec& op, const KernelSource& kernel,
                                     store::Store* store, const SelfProfileConfig& config);

}  // namespace cannbot::validator
