#include "cannbot/validator/output_judge.h"

namespace cannbot::validator {

std::string ToleranceJudge::Judge(const ops::OpSpec& op, const ops::Shape& shape,
                                  const std::vector<ops::Tensor>& inputs,
                                  size_t output_index, const ops::Tensor& expected,
                                  const ops::Tensor& got, const std::string& printed,
                                  Comparison* summary) const {
  (void)inputs;
  (void)printed;
  *summary = CompareOutputs(expected, got, op.ToleranceFor(shape, got.dtype()));
  if (summary->ok()) return "";
  const auto outputs = op.ParamsOfKind(ops::ParamKind::kOutput);
  return "wrong results: " + summary->Describe(outputs[output_index]->name);
}

const OutputJudge& DefaultJudge() {
  static const ToleranceJudge judge;
  return judge;
}

std::string ExplainSandboxFailure(const OutputJudge& judge, const std::string& reason,
                                  const std::string& printed) {
  const std::string better = judge.ExplainCrash(printed);
  if (better.empty()) return reason;
  if (reason.find("forbidden system call") != std::string::npos) {
    return reason + " (it had printed: " + better + ")";
  }
  return better;
}

}  // namespace cannbot::validator
