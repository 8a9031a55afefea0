// Verdict: the outcome of one validation, as a value, as the verdict JSON of DESIGN.md
// (a *contract*), and as the human table `cannbot validate` prints.
//
// Fields that always exist in the JSON: verdict ("accepted" | "rejected"), layer ("compile" |
// "sandbox" | "numeric" | "perf" | null when accepted), reason (one sentence), plus compile,
// numeric (null if not reached) and perf (null if not reached) details.
//
// Thread-safety: a plain value.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/validator/compiler.h"
#include "cannbot/validator/machine_model.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/perf_gate.h"

namespace cannbot::validator {

struct Verdict {
  std::string op;
  std::string target = "cpu";
  uint64_t seed = 0;
  bool accepted = false;
  std::string layer;   // empty when accepted
  std::string reason;  // one sentence
  std::string candidate_name;
  std::string baseline_name;  // a file, or "reference" (the op's reference kernel)
  CompileResult compile;
  std::optional<NumericReport> numeric;
  std::optional<PerfReport> perf;
  std::optional<MachineModel> machine;
  double seconds = 0;

  nlohmann::json ToJson() const;
  std::string RenderText() const;
};

}  // namespace cannbot::validator
