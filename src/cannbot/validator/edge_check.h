// EdgeCheck: how the kernels fare on the op's edge inputs, reported beside the perf verdict.
//
// The perf gate times what users run: the op's realistic input distribution, without the edge
// values its spec declares (huge magnitudes, zeros, values whose exp underflows). Edge values
// are the numeric layer's business, but they also expose speed traps: a kernel that produces
// subnormal numbers on them runs at a fraction of its speed on Intel cores (each subnormal
// result or operand costs a microcode assist; AMD cores barely notice). So after the timed
// rounds the gate times both kernels again on the perf shape with the op's edge values
// sprinkled in at the spec's share, checks their outputs, and records the MXCSR exception
// flags each run raised. The result is a report, never a rejection: the warning names a
// kernel more than 2x slower on the edge inputs, or one that produced subnormal results,
// which is the trap itself on any machine (the flags do not depend on the CPU's speed).
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ops/op_spec.h"
#include "cannbot/util/status.h"

namespace cannbot::validator {

struct EdgeTiming {
  double perf_seconds = 0;  // median per call on the perf inputs (the gate's timing)
  double edge_seconds = 0;  // median per call on the perf shape with edge values
  double slowdown = 0;      // edge_seconds / perf_seconds
  uint32_t perf_fp_exceptions = 0;  // MXCSR flags raised on the perf inputs (runner_protocol.h)
  uint32_t edge_fp_exceptions = 0;  // ... and on the edge inputs
  // The kernel's source sets the floating-point control state itself (flush-to-zero raises
  // the underflow flag too, without any assist): its flags are then no evidence of a trap.
  bool sets_fp_control = false;
};

struct EdgeCheck {
  // A kernel this much slower on the edge inputs than on the perf inputs is reported.
  static constexpr double kTrapSlowdown = 2.0;

  bool ran = false;
  std::string inputs;  // what the edge inputs were ("x: 2% from {0, -0, 1e-30, ...}"), or why
                       // the check did not run
  bool inputs_subnormal = false;  // the edge values include subnormal numbers themselves
  EdgeTiming baseline;
  EdgeTiming candidate;
  std::string warning;  // one sentence about the candidate, "" when nothing to report

  // True when the kernel produced subnormal results (or subnormal operands it made itself,
  // when the inputs hold none) on the edge inputs, and does not flush them itself.
  bool MadeSubnormals(const EdgeTiming& timing) const;
  // Fills `warning` from the figures.
  void Judge();
  // Two lines for the verdict table, "" when the check did not run.
  std::string RenderText() const;
};

// "x: 2% from {0, -0, 1e-30, ... 14 values}" for the edge values `shape`'s inputs get
// (inputs.h WithEdges); "" when no input has any.
std::string DescribeEdgeInputs(const ops::OpSpec& op, const ops::Shape& shape);
// True when a floating-point tensor holds a subnormal value.
bool HoldsSubnormals(const std::vector<ops::Tensor>& tensors);

// True when `source` sets the SSE floating-point control state (_mm_setcsr, ldmxcsr, the
// _MM_SET_*_MODE macros, fesetenv).
bool SetsFloatingPointControl(const std::string& source);

// Whether MXCSR flags raised on some inputs show subnormal numbers the kernel made itself: an
// underflow, or a subnormal operand where the inputs held none.
bool MadeSubnormals(uint32_t fp_exceptions, bool inputs_subnormal);

// "underflow, denormal operand" for MXCSR exception flags; "none" for 0.
std::string DescribeFpExceptions(uint32_t flags);

nlohmann::json EdgeCheckToJson(const EdgeCheck& check);
Result<EdgeCheck> EdgeCheckFromJson(const nlohmann::json& json, const std::string& path);

}  // namespace cannbot::validator
