#include "cannbot/validator/subnormal_probe.h"

#include <algorithm>
#include <cmath>

#include "cannbot/validator/edge_check.h"

namespace cannbot::validator {
namespace {

constexpr int kProbeRounds = 5;  // batches per mode

}  // namespace

Result<SubnormalProbeResult> ProbeSubnormals(KernelRunner* runner, const ops::OpSpec& op,
                                             const ops::Shape& shape, const PreparedCall& call,
                                             std::string inputs, double min_batch_seconds,
                                             std::chrono::milliseconds timeout,
                                             bool flags_are_evidence) {
  SubnormalProbeResult result;
  result.inputs = std::move(inputs);
  char* region = runner->region();
  const std::vector<KernelArg> args = call.layout.Args(op, shape);
  // One checked call first: the timings of a kernel that is wrong here mean nothing.
  Arm(region, call.layout, call.data);
  CANNBOT_ASSIGN_OR_RETURN(CallTiming first, runner->Call(0, {args}, 1, timeout));
  std::string problem = CheckAfterCall(region, call.layout, call.data);
  if (problem.empty()) {
    Comparison summary;
    problem = JudgeOutputs(op, shape, call.data, CopyOutputs(region, call.layout),
                           DefaultJudge(), "", &summary);
  }
  if (!problem.empty()) return Status::InvalidArgument("on " + result.inputs + ": " + problem);
  result.fp_exceptions = first.fp_exceptions;
  const uint32_t subnormal_flags =
      runner_protocol::kFpUnderflow | runner_protocol::kFpDenormalOperand;
  const bool touched = (first.fp_exceptions & subnormal_flags) != 0;
  if (!touched && flags_are_evidence) {  // FTZ/DAZ would change nothing: no timing to do
    result.seconds = result.flushed_seconds = first.wall_seconds;
    return result;
  }
  result.timed = true;
  const uint32_t reps = static_cast<uint32_t>(
      std::clamp(std::ceil(min_batch_seconds / std::max(first.wall_seconds, 1e-7)), 1.0, 1e6));
  std::vector<double> plain, flushed;
  for (int round = 0; round < 2 * kProbeRounds; ++round) {
    const bool flush = round % 2 == 1;
    CANNBOT_ASSIGN_OR_RETURN(CallTiming t,
                             runner->Call(0, {args}, reps, timeout, CallMode{flush}));
    (flush ? flushed : plain).push_back(t.wall_seconds / reps);
    if (!flush) result.fp_exceptions |= t.fp_exceptions;
  }
  result.seconds = *std::min_element(plain.begin(), plain.end());
  result.flushed_seconds = *std::min_element(flushed.begin(), flushed.end());
  result.made_subnormals =
      MadeSubnormals(result.fp_exceptions, HoldsSubnormals(call.data.inputs));
  return result;
}

}  // namespace cannbot::validator
