#include "cannbot/validator/output_judge.h"

namespace cannbot::validator {

std::string ToleranceJudge::Judge(const ops::OpSpec& op, const ops::Shape& shape,
                                  const std::vector<std::vector<float>>& inputs,
                                  size_t output_index, const float* expected, const float* got,
                                  int64_t elements, const std::string& printed,
                                  Comparison* summary) const {
  (void)inputs;
  (void)printed;
  *summary = CompareOutputs(expected, got, elements, op.tolerance(shape));
  if (summary->ok()) return "";
  const auto outputs = op.ParamsOfKind(ops::ParamKind::kOutput);
  return "wrong results: " + summary->Describe(outputs[output_index]->name);
}

const OutputJudge& DefaultJudge() {
  static const ToleranceJudge judge;
  return judge;
}

}  // namespace cannbot::validator
