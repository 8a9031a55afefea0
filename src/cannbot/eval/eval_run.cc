#include "cannbot/eval/eval_run.h"

#include "cannbot/util/json_fields.h"

namespace cannbot::eval {
namespace {

using nlohmann::json;

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json CandidateToJson(const CandidateScore& c) {
  return {{"round", c.round},       {"outcome", c.outcome},   {"layer", c.layer},
          {"class", c.reject_class}, {"detail", c.detail},     {"cheat", c.cheat},
          {"compiled", c.compiled}, {"correct", c.correct},   {"accepted", c.accepted},
          {"speedup", OrNull(c.speedup)}, {"reason", c.reason}, {"code", c.code}};
}

json OpToJson(const OpScore& op) {
  return {{"op", op.op},
          {"family", op.family},
          {"status", op.status},
          {"error", op.error},
          {"notes", op.notes},
          {"candidates", op.candidates},
          {"compiled", op.compiled},
          {"correct", op.correct},
          {"accepted", op.accepted},
          {"validator_errors", op.validator_errors},
          {"compile_rate", op.compile_rate()},
          {"correct_rate", op.correct_rate()},
          {"best_speedup", OrNull(op.best_speedup)},
          {"fast_0", op.Fast(0)},
          {"fast_1", op.Fast(1)},
          {"fast_2", op.Fast(2)},
          {"rejected_by_layer", op.rejected_by_layer},
          {"rejected_by_class", op.rejected_by_class},
          {"cheat_classes", op.CheatClasses()},
          {"tokens", TokensToJson(op.tokens)},
          {"seconds", op.seconds},
          {"attempts", [&] {
             json list = json::array();
             for (const CandidateScore& c : op.attempts) list.push_back(CandidateToJson(c));
             return list;
           }()}};
}

Result<TokenUsage> TokensFromJson(const json& value, const std::string& path) {
  TokenUsage t;
  JsonFields f(value, path);
  f.Read("prompt", &t.prompt);
  f.Read("completion", &t.completion);
  f.Read("total", &t.total);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return t;
}

Result<CandidateScore> CandidateFromJson(const json& value, const std::string& path) {
  CandidateScore c;
  JsonFields f(value, path);
  f.Read("round", &c.round);
  f.Read("outcome", &c.outcome);
  f.Read("layer", &c.layer);
  f.Read("class", &c.reject_class);
  f.Read("detail", &c.detail);
  f.Read("cheat", &c.cheat);
  f.Read("compiled", &c.compiled);
  f.Read("correct", &c.correct);
  f.Read("accepted", &c.accepted);
  f.Read("speedup", &c.speedup);
  f.Read("reason", &c.reason);
  f.Read("code", &c.code);
  CANNBOT_RETURN_IF_ERROR(f.status());
  // Whether a class is a cheat is the classifier's word, not the document's.
  if (!c.reject_class.empty()) {
    const std::optional<RejectClass> id = ParseClass(c.reject_class);
    if (!id) return Status::InvalidArgument(path + ".class: unknown class '" + c.reject_class + "'");
    c.cheat = Info(*id).cheat;
  }
  return c;
}

// The measured fields; the counts and the best speedup are derived from the attempts again.
Result<OpScore> OpFromJson(const json& value, const std::string& path) {
  OpScore op;
  JsonFields f(value, path);
  f.Read("op", &op.op);
  f.Read("family", &op.family);
  f.Read("status", &op.status);
  f.Read("error", &op.error);
  f.Read("notes", &op.notes);
  f.Read("validator_errors", &op.validator_errors);
  f.Object("tokens", &op.tokens, TokensFromJson);
  f.Read("seconds", &op.seconds);
  f.Array("attempts", &op.attempts, CandidateFromJson);
  CANNBOT_RETURN_IF_ERROR(f.status());
  for (const CandidateScore& c : op.attempts) {
    ++op.candidates;
    op.compiled += c.compiled ? 1 : 0;
    op.correct += c.correct ? 1 : 0;
    op.accepted += c.accepted ? 1 : 0;
    if (!c.layer.empty()) ++op.rejected_by_layer[c.layer];
    if (!c.reject_class.empty()) ++op.rejected_by_class[c.reject_class];
    if (c.correct && c.speedup && (!op.best_speedup || *c.speedup > *op.best_speedup)) {
      op.best_speedup = c.speedup;
    }
  }
  return op;
}

}  // namespace

json TokensToJson(const std::optional<TokenUsage>& tokens) {
  if (!tokens) return nullptr;
  return {{"prompt", tokens->prompt}, {"completion", tokens->completion}, {"total", tokens->total}};
}

json TotalsToJson(const Totals& t) {
  return {{"ops", t.ops},
          {"ops_failed", t.ops_failed},
          {"candidates", t.candidates},
          {"compiled", t.compiled},
          {"correct", t.correct},
          {"accepted", t.accepted},
          {"validator_errors", t.validator_errors},
          {"compile_rate", t.compile_rate},
          {"correct_rate", t.correct_rate},
          {"fast_0", t.fast_0},
          {"fast_1", t.fast_1},
          {"fast_2", t.fast_2},
          {"geomean_speedup", OrNull(t.geomean_speedup)},
          {"rejected_by_layer", t.rejected_by_layer},
          {"rejected_by_class", t.rejected_by_class},
          {"cheats", t.cheats},
          {"cheat_classes", t.cheat_classes},
          {"tokens", TokensToJson(t.tokens)}};
}

std::string EvalRun::Name() const { return model + " @ " + server; }

std::vector<CheatRecord> Cheats(const EvalRun& run) {
  std::vector<CheatRecord> cheats;
  for (const OpScore& op : run.ops) {
    for (const CandidateScore& c : op.attempts) {
      if (c.cheat) cheats.push_back({op.op, c.round, c.reject_class, c.detail});
    }
  }
  return cheats;
}

std::string DescribeCheats(const EvalRun& run) {
  std::string text;
  for (const CheatRecord& cheat : Cheats(run)) {
    const std::optional<RejectClass> id = ParseClass(cheat.reject_class);
    text += (text.empty() ? "" : ", ") + std::string(id ? Info(*id).label : "?") + " (" +
            cheat.op + (cheat.detail.empty() ? "" : ": " + cheat.detail) + ")";
  }
  return text;
}

json EvalRun::ToJson() const {
  json cheats = json::array();
  for (const CheatRecord& c : Cheats(*this)) {
    const std::optional<RejectClass> id = ParseClass(c.reject_class);
    cheats.push_back({{"op", c.op},
                      {"round", c.round},
                      {"class", c.reject_class},
                      {"label", id ? Info(*id).label : ""},
                      {"detail", c.detail}});
  }
  json ops_json = json::array();
  for (const OpScore& op : ops) ops_json.push_back(OpToJson(op));
  return {{"schema", kEvalSchema},
          {"id", id},
          {"model", model},
          {"server", server},
          {"provider", provider},
          {"started_at", started_at},
          {"machine", machine},
          {"target", target},
          {"budget", {{"samples", samples},
                      {"rounds", rounds},
                      {"seed", OrNull(seed)},
                      {"min_speedup", OrNull(min_speedup)}}},
          {"seconds", seconds},
          {"overall", TotalsToJson(totals())},
          {"cheated", !cheats.empty()},
          {"cheats", cheats},
          {"ops", ops_json}};
}

Result<EvalRun> EvalRun::FromJson(const json& value, const std::string& path) {
  EvalRun run;
  JsonFields f(value, path);
  std::string schema;
  f.Read("schema", &schema);
  if (f.ok() && schema != kEvalSchema) {
    f.Fail("schema", "expected \"" + std::string(kEvalSchema) + "\", got \"" + schema + "\"");
  }
  f.Read("id", &run.id);
  f.Read("model", &run.model);
  f.Read("server", &run.server);
  f.Read("provider", &run.provider);
  f.Read("started_at", &run.started_at);
  f.Read("machine", &run.machine);
  f.Read("target", &run.target);
  f.Read("seconds", &run.seconds);
  f.Array("ops", &run.ops, OpFromJson);
  const json* budget_json = f.Find("budget");
  CANNBOT_RETURN_IF_ERROR(f.status());
  JsonFields budget(*budget_json, path + ".budget");
  budget.Read("samples", &run.samples);
  budget.Read("rounds", &run.rounds);
  budget.Read("seed", &run.seed);
  budget.Read("min_speedup", &run.min_speedup);
  CANNBOT_RETURN_IF_ERROR(budget.status());
  return run;
}

}  // namespace cannbot::eval
