#include "cannbot/validator/harness.h"

#include <cstring>

#include "cannbot/validator/inputs.h"

namespace cannbot::validator {
namespace {

// Index of the first element of `place` whose bits differ from `staged`; compared as bits so
// a NaN the kernel leaves alone counts as unchanged.
int64_t FirstChangedElement(const char* region, const TensorPlace& place,
                            const std::vector<float>& staged) {
  const float* now = TensorAt(region, place);
  int64_t first = 0;
  while (first < place.elements &&
         std::memcmp(&now[first], &staged[static_cast<size_t>(first)], sizeof(float)) == 0) {
    ++first;
  }
  return first;
}

// "" when every input still holds what the parent staged, else which one changed and where.
std::string CheckInputsUnchanged(const char* region, const CallLayout& layout,
                                 const CallData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    const TensorPlace& place = layout.inputs[i];
    if (std::memcmp(TensorAt(region, place), data.inputs[i].data(), place.bytes()) == 0) continue;
    return "the kernel modified its input " + place.name + " (first at index " +
           std::to_string(FirstChangedElement(region, place, data.inputs[i])) + ")";
  }
  return "";
}

}  // namespace

CallData WithReference(const ops::OpSpec& op, const ops::Shape& shape,
                       std::vector<std::vector<float>> inputs) {
  CallData data;
  data.inputs = std::move(inputs);
  ops::TensorArgs args;
  for (const auto& input : data.inputs) args.inputs.push_back(input.data());
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kOutput)) {
    data.expected.emplace_back(static_cast<size_t>(p->elements(shape)));
  }
  for (auto& out : data.expected) args.outputs.push_back(out.data());
  op.reference(args, shape);
  return data;
}

CallData DrawCallData(const ops::OpSpec& op, const ops::Shape& shape, uint64_t seed,
                      const std::string& stream) {
  return WithReference(op, shape, GenerateInputs(op, shape, seed, stream));
}

PreparedCall PrepareCall(const ops::OpSpec& op, const ops::Shape& shape, uint64_t seed,
                         const std::string& stream, size_t begin) {
  return {CallLayout::Plan(op, shape, begin), DrawCallData(op, shape, seed, stream)};
}

void StageInputs(char* region, const CallLayout& layout, const CallData& data) {
  for (size_t i = 0; i < data.inputs.size(); ++i) {
    std::memcpy(TensorAt(region, layout.inputs[i]), data.inputs[i].data(),
                layout.inputs[i].bytes());
  }
}

void Arm(char* region, const CallLayout& layout, const CallData& data) {
  StageInputs(region, layout, data);
  FillGuards(region, layout.inputs);
  FillGuards(region, layout.outputs);
  PoisonOutputs(region, layout);
}

std::string CheckAfterCall(const char* region, const CallLayout& layout, const CallData& data) {
  std::string problem = CheckGuards(region, layout.outputs, "output");
  if (problem.empty()) problem = CheckGuards(region, layout.inputs, "input");
  if (problem.empty()) problem = CheckInputsUnchanged(region, layout, data);
  return problem;
}

std::vector<std::vector<float>> CopyOutputs(const char* region, const CallLayout& layout) {
  std::vector<std::vector<float>> outputs;
  for (const TensorPlace& out : layout.outputs) {
    const float* data = TensorAt(region, out);
    outputs.emplace_back(data, data + out.elements);
  }
  return outputs;
}

std::string JudgeOutputs(const ops::OpSpec& op, const ops::Shape& shape, const CallData& data,
                         const std::vector<std::vector<float>>& got, const OutputJudge& judge,
                         const std::string& printed, Comparison* summary) {
  *summary = Comparison{};
  std::string first_wrong;
  for (size_t i = 0; i < got.size(); ++i) {
    Comparison c;
    const std::string wrong =
        judge.Judge(op, shape, data.inputs, i, data.expected[i].data(), got[i].data(),
                    static_cast<int64_t>(got[i].size()), printed, &c);
    if (first_wrong.empty()) first_wrong = wrong;
    MergeComparison(summary, c);
  }
  return first_wrong;
}

}  // namespace cannbot::validator
