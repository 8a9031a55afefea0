#include "cannbot/validator/numeric_check.h"

#include <cstring>

#include "cannbot/validator/inputs.h"
#include "cannbot/validator/output_judge.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

// One case's data, kept by the trusted parent.
struct CaseData {
  CallLayout layout;
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> expected;
};

CaseData PrepareCase(const ops::OpSpec& op, const ops::Shape& shape, uint64_t seed) {
  CaseData data;
  data.layout = CallLayout::Plan(op, shape, 0);
  data.inputs = GenerateInputs(op, shape, seed, "numeric/" + shape.label);
  ops::TensorArgs args;
  for (const auto& input : data.inputs) args.inputs.push_back(input.data());
  for (const TensorPlace& out : data.layout.outputs) {
    data.expected.emplace_back(static_cast<size_t>(out.elements));
  }
  for (auto& out : data.expected) args.outputs.push_back(out.data());
  op.reference(args, shape);
  return data;
}

void StageInputs(char* region, const CaseData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    std::memcpy(TensorAt(region, data.layout.inputs[i]), data.inputs[i].data(),
                data.layout.inputs[i].bytes());
  }
  FillGuards(region, data.layout.inputs);
  FillGuards(region, data.layout.outputs);
  PoisonOutputs(region, data.layout);
}

// Empty when the inputs still hold what the parent wrote, else which one changed.
std::string CheckInputsIntact(char* region, const CaseData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    const TensorPlace& place = data.layout.inputs[i];
    if (std::memcmp(TensorAt(region, place), data.inputs[i].data(), place.bytes()) != 0) {
      const float* now = TensorAt(region, place);
      int64_t first = 0;
      while (first < place.elements &&
             std::memcmp(&now[first], &data.inputs[i][static_cast<size_t>(first)],
                         sizeof(float)) == 0) {
        ++first;
      }
      return "the kernel modified its input " + place.name + " (first at index " +
             std::to_string(first) + ")";
    }
  }
  return "";
}

std::vector<std::vector<float>> CopyOutputs(char* region, const CallLayout& layout) {
  std::vector<std::vector<float>> outputs;
  for (const TensorPlace& out : layout.outputs) {
    const float* data = TensorAt(region, out);
    outputs.emplace_back(data, data + out.elements);
  }
  return outputs;
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
  NumericReport report;
  size_t region_bytes = 0;
  for (const ops::Shape& shape : op.shapes) {
    if (!shape.perf) region_bytes = std::max(region_bytes, CallLayout::Plan(op, shape, 0).end);
  }
  CANNBOT_ASSIGN_OR_RETURN(auto runner,
                           KernelRunner::Start(runner_config, region_bytes, work_dir));
  auto fail = [&](const std::string& layer, std::string reason) {
    if (layer == "sandbox") {  // the target's runtime may know better than the signal
      const std::string better = judge.ExplainCrash(runner->ChildOutput(1u << 20));
      if (!better.empty()) reason = better;
    }
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
    if (child_failed(loaded)) return fail("sandbox", loaded.message());
    return loaded;
  }
  report.sandbox_warnings = runner->sandbox_warnings();
  char* region = runner->region();
  for (const ops::Shape& shape : op.shapes) {
    if (shape.perf) continue;
    const std::string where = "on case '" + shape.label + "' (" + shape.Describe() + ")";
    CaseData data = PrepareCase(op, shape, seed);
    NumericCase result;
    result.label = shape.label;
    result.shape = shape.Describe();
    result.tolerance = op.tolerance(shape);
    const std::vector<KernelArg> args = data.layout.Args(op, shape);

    StageInputs(region, data);
    const size_t printed_before = runner->ChildOutputBytes();
    auto timing = runner->Call(0, {args}, 1, config.call_timeout);
    if (!timing.ok()) {
      if (child_failed(timing.status())) {
        return fail("sandbox", timing.status().message() + " " + where);
      }
      return timing.status();
    }
    result.seconds = timing->wall_seconds;
    std::string problem = CheckGuards(region, data.layout.outputs, "output");
    if (problem.empty()) problem = CheckGuards(region, data.layout.inputs, "input");
    if (problem.empty()) problem = CheckInputsIntact(region, data);
    auto first_outputs = CopyOutputs(region, data.layout);
    const std::string printed = runner->ChildOutputSince(printed_before);
    for (size_t i = 0; i < first_outputs.size(); ++i) {
      Comparison c;
      std::string wrong = judge.Judge(op, shape, data.inputs, i, data.expected[i].data(),
                                      first_outputs[i].data(), data.layout.outputs[i].elements,
                                      printed, &c);
      if (problem.empty()) problem = wrong;
      MergeComparison(&result.comparison, c);
    }
    if (problem.empty() && config.check_determinism) {
      StageInputs(region, data);
      auto again = runner->Call(0, {args}, 1, config.call_timeout);
      if (!again.ok()) {
        if (child_failed(again.status())) {
          return fail("sandbox", again.status().message() + " " + where + " (second run)");
        }
        return again.status();
      }
      auto second_outputs = CopyOutputs(region, data.layout);
      for (size_t i = 0; i < second_outputs.size() && problem.empty(); ++i) {
        if (std::memcmp(first_outputs[i].data(), second_outputs[i].data(),
                        data.layout.outputs[i].bytes()) != 0) {
          Comparison c;
          const std::string wrong =
              judge.Judge(op, shape, data.inputs, i, data.expected[i].data(),
                          second_outputs[i].data(), data.layout.outputs[i].elements, printed, &c);
          problem = "nondeterministic: a second run on the same inputs gave different bits in "
                    "output " + data.layout.outputs[i].name +
                    (wrong.empty() ? std::string(" (both within tolerance)")
                                   : " (second run: " + wrong + ")");
        }
      }
    }
    result.problem = problem;
    report.cases.push_back(result);
    if (!problem.empty()) return fail("numeric", problem + " " + where);
  }
  const std::string printing = judge.Printing(runner->ChildOutput(1u << 20));
  if (!printing.empty()) return fail("sandbox", PrintedReason(printing.size(), printing.substr(0, 80)));
  report.ok = true;
  return report;
}

}  // namespace cannbot::validator
