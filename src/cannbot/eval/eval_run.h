// EvalRun: one evaluation of a model server as a value: who was measured (model, server),
// where (machine), with which budget, and each op's score. Its JSON document (ToJson) is what
// `cannbot eval --json` prints, `--out` writes, the eval store keeps and `--compare` reads
// back (FromJson); docs/eval.md shows it.
//
// The document carries derived figures for its readers ("overall", "cheats", each op's rates
// and fast_p); FromJson reads only the measured ones and derives the rest again, so a stored
// run cannot claim figures its ops do not support. FromJson's errors name the field
// ("run.ops[1].candidates: expected an integer").
//
// Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/eval/score.h"
#include "cannbot/util/status.h"

namespace cannbot::eval {

inline constexpr char kEvalSchema[] = "cannbot.eval/1";

struct EvalRun {
  std::string id;          // "eval-20250101T120000Z-1a2b3c"
  std::string model;       // as given; "offline recipes" for the offline provider
  std::string server;      // the endpoint's base URL, or "offline"
  std::string provider;    // how the engine described it
  std::string started_at;  // UTC, "2025-01-01T12:00:00Z"
  std::string machine;     // the CPU the timings were taken on
  std::string target = "cpu";
  int samples = 0;  // candidates asked for per round
  int rounds = 0;   // repair rounds after the first
  std::optional<uint64_t> seed;
  std::optional<double> min_speedup;  // the perf bar, when not the validator's default
  double seconds = 0;  // wall time of the whole run
  std::vector<OpScore> ops;

  Totals totals() const { return Total(ops); }
  // "model @ server".
  std::string Name() const;

  nlohmann::json ToJson() const;
  static Result<EvalRun> FromJson(const nlohmann::json& json, const std::string& path = "run");
};

// One candidate in a cheat class, for the run's "cheats" list.
struct CheatRecord {
  std::string op;
  int round = 0;
  std::string reject_class;  // ClassInfo::name
  std::string detail;
};
std::vector<CheatRecord> Cheats(const EvalRun& run);

// "forbidden call (relu: starts processes (`system(` at line 3)), ..."; "" when none.
std::string DescribeCheats(const EvalRun& run);

nlohmann::json TotalsToJson(const Totals& totals);
nlohmann::json TokensToJson(const std::optional<TokenUsage>& tokens);

}  // namespace cannbot::eval
