// CandidateJudge: what the optimisation loop needs from a validator, and nothing more: a
// verdict for one candidate. The real judge is the three-layer Validator (ValidatorJudge);
// tests of the loop substitute scripted verdicts, so they need no compiler and no runner.
//
// Ownership: ValidatorJudge borrows its Validator, which must outlive it.
// Thread-safety: as the judge behind it (a Validator may be shared between threads).
#pragma once

#include "cannbot/util/status.h"
#include "cannbot/validator/validator.h"
#include "cannbot/validator/verdict.h"

namespace cannbot::optimize {

class CandidateJudge {
 public:
  virtual ~CandidateJudge() = default;
  // A verdict for `request.candidate` (accepted, or rejected at a named layer). An error
  // Status means the judge could not do its job (unknown op, cannot spawn, cannot write
  // files), not that the candidate is bad.
  virtual Result<validator::Verdict> Validate(const validator::ValidationRequest& request) = 0;
};

// The real judge: a Validator's full three-layer validation.
class ValidatorJudge final : public CandidateJudge {
 public:
  explicit ValidatorJudge(validator::Validator* validator) : validator_(validator) {}
  Result<validator::Verdict> Validate(const validator::ValidationRequest& request) override {
    return validator_->Validate(request);
  }

 private:
  validator::Validator* validator_;
};

}  // namespace cannbot::optimize
