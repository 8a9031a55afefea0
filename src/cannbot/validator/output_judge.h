// OutputJudge: decides whether one call's outputs are right, and what counts as the kernel
// printing. The cpu target compares element by element with the op's tolerance; other
// targets (ascendc) apply their own precision standard and read the lines their runtime
// prints on stdout.
//
// Thread-safety: judges are immutable; calls are const.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/compare.h"

namespace cannbot::validator {

class OutputJudge {
 public:
  virtual ~OutputJudge() = default;
  // One output of one call against the reference's; `inputs` are what the kernel was given
  // and `printed` what it wrote during the call. Fills `summary`; returns "" when right,
  // else one sentence.
  virtual std::string Judge(const ops::OpSpec& op, const ops::Shape& shape,
                            const std::vector<ops::Tensor>& inputs, size_t output_index,
                            const ops::Tensor& expected, const ops::Tensor& got,
                            const std::string& printed, Comparison* summary) const = 0;
  // The part of `printed` that counts as the kernel printing (a runtime's own lines excluded).
  virtual std::string Printing(const std::string& printed) const { return printed; }
  // A better reason for a crash than the signal, from what was printed ("" = none).
  virtual std::string ExplainCrash(const std::string& printed) const {
    (void)printed;
    return "";
  }
};

// The reason a sandbox failure is reported with: `reason` (the signal, the trapped call), or
// the judge's better explanation from what the kernel printed. A trapped system call is a fact
// the kernel cannot print away: it stays first, the printed explanation after it (a kernel
// that printed a fake rule violation before opening a socket hid the socket).
std::string ExplainSandboxFailure(const OutputJudge& judge, const std::string& reason,
                                  const std::string& printed);

// The op's tolerance for the shape and the output's dtype (compare.h).
class ToleranceJudge : public OutputJudge {
 public:
  std::string Judge(const ops::OpSpec& op, const ops::Shape& shape,
                    const std::vector<ops::Tensor>& inputs, size_t output_index,
                    const ops::Tensor& expected, const ops::Tensor& got,
                    const std::string& printed, Comparison* summary) const override;
};

const OutputJudge& DefaultJudge();

}  // namespace cannbot::validator
