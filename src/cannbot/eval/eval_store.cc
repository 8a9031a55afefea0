#include "cannbot/eval/eval_store.h"

#include <filesystem>

#include "cannbot/store/store.h"

namespace cannbot::eval {
namespace {

using store::Value;

// migrations[i] brings the schema from version i to i + 1; never edit one that shipped.
const std::vector<std::string>& EvalMigrations() {
  static const std::vector<std::string> kMigrations = {
      R"(CREATE TABLE eval_runs (
           id TEXT PRIMARY KEY,
           started_at TEXT NOT NULL,
           model TEXT NOT NULL,
           server TEXT NOT NULL,
           machine TEXT NOT NULL,
           samples INTEGER NOT NULL,
           rounds INTEGER NOT NULL,
           ops INTEGER NOT NULL,
           ops_failed INTEGER NOT NULL,
           candidates INTEGER NOT NULL,
           compile_rate REAL NOT NULL,
           correct_rate REAL NOT NULL,
           fast_0 REAL NOT NULL,
           fast_1 REAL NOT NULL,
           fast_2 REAL NOT NULL,
           cheats INTEGER NOT NULL,
           cheat_classes TEXT NOT NULL,
           tokens INTEGER,
           seconds REAL NOT NULL,
           document TEXT NOT NULL);
         CREATE INDEX eval_runs_board ON eval_runs (fast_1 DESC, correct_rate DESC,
                                                     started_at DESC);)",
  };
  return kMigrations;
}

std::string JoinClasses(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

std::vector<std::string> SplitClasses(const std::string& text) {
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) names.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return names;
}

constexpr char kSummaryColumns[] =
    "id, model, server, started_at, machine, samples, rounds, ops, ops_failed, candidates, "
    "compile_rate, correct_rate, fast_0, fast_1, fast_2, cheats, cheat_classes, tokens, seconds";

EvalSummary SummaryOf(const store::Row& row) {
  EvalSummary s;
  s.id = store::TextAt(row, 0);
  s.model = store::TextAt(row, 1);
  s.server = store::TextAt(row, 2);
  s.started_at = store::TextAt(row, 3);
  s.machine = store::TextAt(row, 4);
  s.samples = static_cast<int>(store::IntAt(row, 5));
  s.rounds = static_cast<int>(store::IntAt(row, 6));
  s.ops = static_cast<int>(store::IntAt(row, 7));
  s.ops_failed = static_cast<int>(store::IntAt(row, 8));
  s.candidates = static_cast<int>(store::IntAt(row, 9));
  s.compile_rate = store::DoubleAt(row, 10);
  s.correct_rate = store::DoubleAt(row, 11);
  s.fast_0 = store::DoubleAt(row, 12);
  s.fast_1 = store::DoubleAt(row, 13);
  s.fast_2 = store::DoubleAt(row, 14);
  s.cheats = static_cast<int>(store::IntAt(row, 15));
  s.cheat_classes = SplitClasses(store::TextAt(row, 16));
  if (std::holds_alternative<int64_t>(row[17])) s.tokens = std::get<int64_t>(row[17]);
  s.seconds = store::DoubleAt(row, 18);
  return s;
}

}  // namespace

nlohmann::json EvalSummary::ToJson() const {
  return {{"id", id},
          {"model", model},
          {"server", server},
          {"started_at", started_at},
          {"machine", machine},
          {"budget", {{"samples", samples}, {"rounds", rounds}}},
          {"ops", ops},
          {"ops_failed", ops_failed},
          {"candidates", candidates},
          {"compile_rate", compile_rate},
          {"correct_rate", correct_rate},
          {"fast_0", fast_0},
          {"fast_1", fast_1},
          {"fast_2", fast_2},
          {"cheats", cheats},
          {"cheat_classes", cheat_classes},
          {"tokens", tokens ? nlohmann::json(*tokens) : nlohmann::json(nullptr)},
          {"seconds", seconds}};
}

std::string EvalStore::DefaultPath(const std::string& store_path) {
  const std::string base = store_path.empty() ? store::Store::DefaultPath() : store_path;
  const std::filesystem::path dir = std::filesystem::path(base).parent_path();
  return (dir.empty() ? std::filesystem::path("evals.db") : dir / "evals.db").string();
}

Result<std::unique_ptr<EvalStore>> EvalStore::Open(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return Status::IoError("cannot create the directory of " + path + ": " + error.message());
    }
  }
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> db,
                           store::Database::Open(path, EvalMigrations()));
  return std::unique_ptr<EvalStore>(new EvalStore(std::move(db)));
}

Status EvalStore::Save(const EvalRun& run) {
  if (run.id.empty()) return Status::InvalidArgument("an evaluation run needs an id to be saved");
  const Totals t = run.totals();
  const std::string document =
      run.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const Value tokens = t.tokens ? Value(t.tokens->total) : Value(nullptr);
  return db_->Execute(
      "INSERT OR REPLACE INTO eval_runs (" + std::string(kSummaryColumns) +
          ", document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {run.id, run.model, run.server, run.started_at, run.machine, int64_t{run.samples},
       int64_t{run.rounds}, int64_t{t.ops}, int64_t{t.ops_failed}, int64_t{t.candidates},
       t.compile_rate, t.correct_rate, t.fast_0, t.fast_1, t.fast_2, int64_t{t.cheats},
       JoinClasses(t.cheat_classes), tokens, run.seconds, document});
}

Result<std::vector<EvalSummary>> EvalStore::List(int limit) {
  std::string sql = "SELECT " + std::string(kSummaryColumns) +
                    " FROM eval_runs ORDER BY fast_1 DESC, correct_rate DESC, started_at DESC";
  std::vector<Value> params;
  if (limit > 0) {
    sql += " LIMIT ?";
    params.push_back(int64_t{limit});
  }
  CANNBOT_ASSIGN_OR_RETURN(std::vector<store::Row> rows, db_->Query(sql, params));
  std::vector<EvalSummary> board;
  for (const store::Row& row : rows) board.push_back(SummaryOf(row));
  return board;
}

Result<EvalRun> EvalStore::Get(const std::string& id) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<store::Row> rows,
                           db_->Query("SELECT document FROM eval_runs WHERE id = ?", {id}));
  if (rows.empty()) return Status::NotFound("no stored evaluation run '" + id + "'");
  const auto json = nlohmann::json::parse(store::TextAt(rows[0], 0), nullptr, false);
  if (json.is_discarded()) return Status::Internal("stored evaluation run '" + id + "' is not JSON");
  return EvalRun::FromJson(json, "run " + id);
}

}  // namespace cannbot::eval
