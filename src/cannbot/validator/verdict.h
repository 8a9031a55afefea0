// Verdict: the outcome of one validation, as a value, as the verdict JSON of DESIGN.md
// (a *contract*), and as the human table `cannbot validate` prints.
//
// Fields that always exist in the JSON: verdict ("accepted" | "rejected"), layer ("compile" |
// "sandbox" | "numeric" | "perf" | null when accepted), reason (one sentence), plus compile,
// numeric (null if not reached) and perf (null if not reached) details. FromJson reads that
// JSON back into the same value (ToJson writes every field, so the round trip is exact);
// its errors name the field ("verdict.perf.speedup: expected a number").
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
#include "cannbot/util/status.h"

namespace cannbot::validator {

struct Verdict {
  std::string op;
  std::string target;  // the target's name (target/registry.h)
  uint64_t seed = 0;
  bool accepted = false;
  Layer layer = Layer::kNone;  // kNone when accepted
  std::string reason;  // one sentence
  std::string candidate_name;
  std::string baseline_name;  // a file, or "reference" (the op's reference kernel)
  // Whose numbers the candidate had to reproduce: "the built-in reference", "reference
  // FILE (sandboxed)", or the baseline in differential mode (reference_oracle.h).
  std::string reference = "the built-in reference";
  CompileResult compile;
  std::optional<NumericReport> numeric;
  std::optional<PerfReport> perf;
  std::optional<MachineModel> machine;
  double seconds = 0;

  nlohmann::json ToJson() const;
  // `path` names the document in errors ("report.attempts[2].verdict").
  static Result<Verdict> FromJson(const nlohmann::json& json, const std::string& path = "verdict");
  std::string RenderText() const;
};

// A kernel through the first two layers only (is it a correct kernel at all?).
struct KernelCheck {
  bool ok = false;
  Layer layer = Layer::kNone;  // kCompile, kSandbox or kNumeric when !ok
  std::string reason;  // one sentence when !ok
  CompileResult compile;
  std::optional<NumericReport> numeric;

  // {ok, layer, reason, compile, numeric (null if not reached)}, compile and numeric as in
  // the verdict JSON.
  nlohmann::json ToJson() const;
  static Result<KernelCheck> FromJson(const nlohmann::json& json,
                                      const std::string& path = "kernel_check");
};

}  // namespace cannbot::validator
