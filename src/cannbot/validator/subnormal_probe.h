// SubnormalProbe: does a kernel pay for subnormal numbers? The self-profile's evidence for the
// trap that costs Intel cores a microcode assist per subnormal result or operand.
//
// The kernel runs once on one prepared call (the op's edge inputs where its spec has them,
// else the perf inputs) and the MXCSR flags of that run say whether it made or read a
// subnormal number at all, on any CPU. Where it did (or where the kernel sets its own
// floating-point control state, so the flags prove nothing), it runs in alternating batches
// with the caller's floating-point state and with flush-to-zero and denormals-are-zero set:
// the ratio of the two times is what subnormals cost on this CPU (about 1 on AMD cores, far
// more on Intel ones). Each mode's time is its fastest batch: whatever else runs on the
// machine only adds time, and the cost of subnormals is paid in every plain batch. Where the
// flags are clean, FTZ/DAZ change nothing the kernel computes, so nothing is timed and the
// slowdown is 1: timing two identical runs under a loaded suite once read 2x (CI, twice).
//
// Thread-safety: uses the caller's runner; one probe at a time per runner.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/harness.h"
#include "cannbot/validator/kernel_runner.h"

namespace cannbot::validator {

struct SubnormalProbeResult {
  std::string inputs;             // which inputs: "the op's edge inputs (x: 2% from {...})"
  double seconds = 0;             // per call, fastest batch, as the kernel runs normally
  double flushed_seconds = 0;     // per call, fastest batch, flush-to-zero and denormals-are-zero
  uint32_t fp_exceptions = 0;     // MXCSR flags of the normal runs (runner_protocol.h)
  bool made_subnormals = false;   // underflow or subnormal operands the inputs did not hold
  bool timed = false;             // false: the flags were clean, nothing to time (Slowdown 1)

  double Slowdown() const {
    if (!timed) return 1;
    return flushed_seconds > 0 ? seconds / flushed_seconds : 0;
  }
};

// `call` is staged at its layout in `runner`'s region (Arm). `flags_are_evidence`: the kernel
// leaves the floating-point control state alone (SetsFloatingPointControl is false), so clean
// flags mean no subnormal number. Errors: the kernel failed or computed wrong numbers on these
// inputs (InvalidArgument or the runner's status).
Result<SubnormalProbeResult> ProbeSubnormals(KernelRunner* runner, const ops::OpSpec& op,
                                             const ops::Shape& shape, const PreparedCall& call,
                                             std::string inputs, double min_batch_seconds,
                                             std::chrono::milliseconds timeout,
                                             bool flags_are_evidence);

}  // namespace cannbot::validator
