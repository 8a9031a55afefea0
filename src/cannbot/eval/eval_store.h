// EvalStore: the evaluations run on this machine, kept for a leaderboard.
//
// Each run is one row of the `eval_runs` table: the figures a leaderboard sorts and shows
// (model, server, date, ops, rates, fast_p, cheats, tokens, time) in columns, and the run's
// whole JSON document (eval_run.h) beside them, so that `cannbot eval --compare ID ...` and a
// daemon's GET /evals can read any run back. The table lives in its own SQLite file,
// `evals.db` beside the store file (store::Store::DefaultPath's directory), with its own
// schema migrations: cannbot's main store keeps its version counter to itself.
//
// Ownership: the store owns its connection. Thread-safety: safe to share between threads
// (the Database serialises access); several processes may use one file (WAL mode).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/eval/eval_run.h"
#include "cannbot/store/database.h"
#include "cannbot/util/status.h"

namespace cannbot::eval {

// One leaderboard row.
struct EvalSummary {
  std::string id;
  std::string model;
  std::string server;
  std::string started_at;  // UTC, ISO 8601
  std::string machine;
  int samples = 0;
  int rounds = 0;
  int ops = 0;
  int ops_failed = 0;
  int candidates = 0;
  double compile_rate = 0;
  double correct_rate = 0;
  double fast_0 = 0;
  double fast_1 = 0;
  double fast_2 = 0;
  int cheats = 0;                          // candidates in a cheat class
  std::vector<std::string> cheat_classes;  // ClassInfo::name
  std::optional<int64_t> tokens;           // total; null when not reported
  double seconds = 0;

  nlohmann::json ToJson() const;
};

class EvalStore {
 public:
  // Opens (creating the file and its directory when needed) and migrates the schema.
  static Result<std::unique_ptr<EvalStore>> Open(const std::string& path);
  // evals.db in the directory of `store_path` ("" = store::Store::DefaultPath()).
  static std::string DefaultPath(const std::string& store_path = "");

  // Saves `run` under run.id (InvalidArgument when empty); a run saved again replaces its row.
  Status Save(const EvalRun& run);
  // The leaderboard: best fast_1 first, then correct rate, then the most recent; at most
  // `limit` rows (0 = all).
  Result<std::vector<EvalSummary>> List(int limit = 0);
  // The run saved under `id`; NotFound when none.
  Result<EvalRun> Get(const std::string& id);

  const std::string& path() const { return db_->path(); }

 private:
  explicit EvalStore(std::unique_ptr<store::Database> db) : db_(std::move(db)) {}
  std::unique_ptr<store::Database> db_;
};

}  // namespace cannbot::eval
