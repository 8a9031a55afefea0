// Views of an evaluation for people: the table `cannbot eval` prints (one row per op and an
// overall row, then the rejections and the cheats, naming the model that cheated), two runs
// side by side (`cannbot eval --compare`, also as JSON), and a self-contained HTML page
// (`--html FILE`: no scripts, no external styles or fonts; every string that came from the
// model, a kernel or a server is escaped, so a kernel holding `</script>` or markup shows as
// text).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cannbot/eval/eval_run.h"

namespace cannbot::eval {

std::string RenderTable(const EvalRun& run);

// Overall figures, then per op (every op of either run, `a`'s order first).
std::string RenderComparison(const EvalRun& a, const EvalRun& b);
// {"a": {id, model, server, started_at, machine, budget, overall}, "b": {...},
//  "ops": [{"op", "a": {status, candidates, correct, correct_rate, best_speedup, fast_0,
//  fast_1, fast_2, cheat_classes} | null, "b": ... | null}]}
nlohmann::json ComparisonToJson(const EvalRun& a, const EvalRun& b);

std::string RenderHtml(const EvalRun& run);

// "2.41x", "-" without a value.
std::string SpeedupText(const std::optional<double>& speedup);
// "67%".
std::string Percent(double share);

}  // namespace cannbot::eval
