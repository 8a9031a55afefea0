#include "cannbot/validator/numeric_check.h"

#include <cstring>

#include "cannbot/validator/harness.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

// "" when a second run on the same inputs gave the same bits as the first, else which output
// differs and whether the second answer is still right.
std::string SecondRunProblem(const ops::OpSpec& op, const ops::Shape& shape,
                             const PreparedCall& call,
                             const std::vector<ops::Tensor>& first,
                             const std::vector<ops::Tensor>& second,
                             const OutputJudge& judge, const std::string& printed) {
  for (size_t i = 0; i < second.size(); ++i) {
    const TensorPlace& out = call.layout.outputs[i];
    if (first[i].SameBits(second[i])) continue;
    Comparison c;
    const std::string wrong = judge.Judge(op, shape, call.data.inputs, i,
                                          call.data.expected[i], second[i], printed, &c);
    return "nondeterministic: a second run on the same inputs gave different bits in output " +
           out.name +
           (wrong.empty() ? std::string(" (both within tolerance)")
                          : " (second run: " + wrong + ")");
  }
  return "";
}

}  // namespace

std::string PrintedReason(size_t bytes, const std::string& start) {
  std::string first_line = start.substr(0, start.find('\n'));
  return "the kernel printed " + std::to_string(bytes) +
         " bytes to stdout/stderr (kernels must not print; output is never trusted), starting: \"" +
         first_line + "\"";
}

std::vector<runner_protocol::ArgKind> ArgKinds(const ops::OpSpec& op) {
  std::vector<runner_protocol::ArgKind> kinds;
  for (const ops::Param& p : op.params) {
    switch (p.kind) {
      case ops::ParamKind::kInput:
      case ops::ParamKind::kOutput: kinds.push_back(runner_protocol::ArgKind::kTensor); break;
      case ops::ParamKind::kSize: kinds.push_back(runner_protocol::ArgKind::kInt64); break;
      case ops::ParamKind::kScalar: kinds.push_back(runner_protocol::ArgKind::kFloat32); break;
    }
  }
  return kinds;
}

Result<NumericReport> RunNumericCheck(const ops::OpSpec& op, const std::string& shared_object,
                                      uint64_t seed, const RunnerConfig& runner_config,
                                      const NumericConfig& config, const std::string& work_dir,
                                      const OutputJudge& judge) {
  return RunNumericCheck(op, *InProcessReference(op), shared_object, seed, runner_config, config,
                         work_dir, judge);
}

Result<NumericReport> RunNumericCheck(const ops::OpSpec& op, const ReferenceOracle& reference,
                                      const std::string& shared_object, uint64_t seed,
                                      const RunnerConfig& runner_config,
                                      const NumericConfig& config, const std::string& work_dir,
                                      const OutputJudge& judge) {
  NumericReport report;
  std::vector<ops::Shape> cases;
  for (const ops::Shape& shape : op.shapes) {
    if (!shape.perf) cases.push_back(shape);
  }
  if (op.random_shape) {  // a case no file lists, different for every seed
    if (auto random = op.random_shape(seed)) cases.push_back(*random);
  }
  size_t region_bytes = 0;
  for (const ops::Shape& shape : cases) {
    region_bytes = std::max(region_bytes, CallLayout::Plan(op, shape, 0).end);
  }
  CANNBOT_ASSIGN_OR_RETURN(auto runner,
                           KernelRunner::Start(runner_config, region_bytes, work_dir));
  // `where`: the case it happened on, kept when the target explains a crash better.
  auto fail = [&](Layer layer, std::string reason, const std::string& where = "") {
    if (layer == Layer::kSandbox) {  // the target's runtime may know better than the signal
      reason = ExplainSandboxFailure(judge, reason, runner->ChildOutput(1u << 20));
    }
    if (!where.empty()) reason += " " + where;
    report.ok = false;
    report.layer = layer;
    report.reason = reason;
    report.child_output = runner->ChildOutput();
    return report;
  };
  // Failures of the child are the kernel's; anything else is the validator's own problem.
  auto child_failed = [](const Status& s) {
    return s.code() == Status::Code::kAborted || s.code() == Status::Code::kTimeout;
  };

  Status loaded = runner->Load(0, shared_object, op.name, ArgKinds(op));
  if (loaded.ok()) loaded = runner->Seal();
  if (!loaded.ok()) {
    if (child_failed(loaded)) return fail(Layer::kSandbox, loaded.message());
    return loaded;
  }
  report.sandbox_warnings = runner->sandbox_warnings();
  report.memory_limit = runner->DescribeMemoryLimit();
  char* region = runner->region();
  for (const ops::Shape& shape : cases) {
    const std::string where = "on case '" + shape.label + "' (" + shape.Describe() + ")";
    CANNBOT_ASSIGN_OR_RETURN(const PreparedCall call,
                             PrepareCall(reference, op, shape, seed, "numeric/" + shape.label, 0));
    NumericCase result;
    result.label = shape.label;
    result.shape = shape.Describe();
    result.tolerance = op.tolerance(shape);  // the first output's, for reports
    const std::vector<KernelArg> args = call.layout.Args(op, shape);

    Arm(region, call.layout, call.data);
    const size_t printed_before = runner->ChildOutputBytes();
    auto timing = runner->Call(0, {args}, 1, config.call_timeout);
    if (!timing.ok()) {
      if (child_failed(timing.status())) {
        return fail(Layer::kSandbox, timing.status().message(), where);
      }
      return timing.status();
    }
    result.seconds = timing->wall_seconds;
    std::string problem = CheckAfterCall(region, call.layout, call.data);
    const auto first_outputs = CopyOutputs(region, call.layout);
    const std::string printed = runner->ChildOutputSince(printed_before);
    const std::string wrong = JudgeOutputs(op, shape, call.data, first_outputs, judge, printed,
                                           &result.comparison);
    if (problem.empty()) problem = wrong;
    if (problem.empty() && config.check_determinism) {
      Arm(region, call.layout, call.data);
      auto again = runner->Call(0, {args}, 1, config.call_timeout);
      if (!again.ok()) {
        if (child_failed(again.status())) {
          return fail(Layer::kSandbox, again.status().message(), where + " (second run)");
        }
        return again.status();
      }
      problem = SecondRunProblem(op, shape, call, first_outputs,
                                 CopyOutputs(region, call.layout), judge, printed);
    }
    result.problem = problem;
    report.cases.push_back(result);
    if (!problem.empty()) return fail(Layer::kNumeric, problem, where);
  }
  const std::string printing = judge.Printing(runner->ChildOutput(1u << 20));
  if (!printing.empty()) return fail(Layer::kSandbox, PrintedReason(printing.size(), printing.substr(0, 80)));
  report.ok = true;
  return report;
}

}  // namespace cannbot::validator
