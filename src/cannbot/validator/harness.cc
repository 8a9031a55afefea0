#include "cannbot/validator/harness.h"

#include <cstring>

#include "cannbot/validator/inputs.h"

namespace cannbot::validator {
namespace {

// "" when every input still holds what the parent staged, else which one changed and where
// (compared as bits, so a NaN the kernel leaves alone counts as unchanged).
std::string CheckInputsUnchanged(const char* region, const CallLayout& layout,
                                 const CallData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    const TensorPlace& place = layout.inputs[i];
    if (std::memcmp(TensorAt(region, place), data.inputs[i].data(), place.bytes()) == 0) continue;
    return "the kernel modified its input " + place.name + " (first at index " +
           std::to_string(ReadTensor(region, place).FirstDifference(data.inputs[i])) + ")";
  }
  return "";
}

}  // namespace

Result<CallData> WithReference(const ReferenceOracle& reference, const ops::Shape& shape,
                               std::vector<ops::Tensor> inputs) {
  CallData data;
  data.inputs = std::move(inputs);
  CANNBOT_ASSIGN_OR_RETURN(data.expected, reference.Outputs(shape, data.inputs));
  return data;
}

Result<CallData> DrawCallData(const ReferenceOracle& reference, const ops::OpSpec& op,
                              const ops::Shape& shape, uint64_t seed, const std::string& stream) {
  return WithReference(reference, shape, GenerateInputs(op, shape, seed, stream));
}

Result<PreparedCall> PrepareCall(const ReferenceOracle& reference, const ops::OpSpec& op,
                                 const ops::Shape& shape, uint64_t seed,
                                 const std::string& stream, size_t begin) {
  PreparedCall call;
  call.layout = CallLayout::Plan(op, shape, begin);
  CANNBOT_ASSIGN_OR_RETURN(call.data, DrawCallData(reference, op, shape, seed, stream));
  return call;
}

void StageInputs(char* region, const CallLayout& layout, const CallData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    std::memcpy(TensorAt(region, layout.inputs[i]), data.inputs[i].data(),
                layout.inputs[i].bytes());
  }
}

void Arm(char* region, const CallLayout& layout, const CallData& data) {
  StageInputs(region, layout, data);
  FillGuards(region, layout.inputs, layout.traps);
  FillGuards(region, layout.outputs, layout.traps);
  PoisonOutputs(region, layout);
}

std::string CheckAfterCall(const char* region, const CallLayout& layout, const CallData& data) {
  std::string problem = CheckGuards(region, layout.outputs, "output", layout.traps);
  if (problem.empty()) problem = CheckGuards(region, layout.inputs, "input", layout.traps);
  if (problem.empty()) problem = CheckInputsUnchanged(region, layout, data);
  return problem;
}

std::vector<ops::Tensor> CopyOutputs(const char* region, const CallLayout& layout) {
  std::vector<ops::Tensor> outputs;
  for (const TensorPlace& out : layout.outputs) outputs.push_back(ReadOutput(region, out, layout.traps));
  return outputs;
}

std::string JudgeOutputs(const ops::OpSpec& op, const ops::Shape& shape, const CallData& data,
                         const std::vector<ops::Tensor>& got, const OutputJudge& judge,
                         const std::string& printed, Comparison* summary) {
  *summary = Comparison{};
  std::string first_wrong;
  for (size_t i = 0; i < got.size(); ++i) {
    Comparison c;
    const std::string wrong =
        judge.Judge(op, shape, data.inputs, i, data.expected[i], got[i], printed, &c);
    if (first_wrong.empty()) first_wrong = wrong;
    MergeComparison(summary, c);
  }
  return first_wrong;
}

}  // namespace cannbot::validator
