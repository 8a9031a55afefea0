// The evaluation's arithmetic and names: the cheat classifier on the reasons the validator
// writes (the static check's own text, the runner's seccomp message, the guard checks, the
// perf gate), fast_p as KernelBench defines it, the JSON round trip, HTML escaping and the
// eval store's leaderboard.
#include <gtest/gtest.h>

#include "cannbot/page/html.h"

#include <cmath>

#include "cannbot/eval/classify.h"
#include "cannbot/eval/eval_run.h"
#include "cannbot/eval/eval_store.h"
#include "cannbot/eval/render.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/source_check.h"

namespace cannbot::eval {
namespace {

using validator::Layer;

struct ReasonCase {
  Layer layer;
  std::string reason;
  const char* expected;  // ClassInfo::name
  bool cheat;
  const char* detail;    // a phrase the detail must contain ("" = anything)
};

TEST(EvalClassifyTest, NamesTheValidatorsReasons) {
  const std::string static_check = validator::DescribeFindings(validator::CheckSource(
      "#include <cstdlib>\nextern \"C\" void relu(const float* x, float* y, long n) {\n"
      "  std::system(\"echo pwned\");\n}\n"));
  const std::string threads = validator::DescribeFindings(validator::CheckSource(
      "#include <thread>\nvoid f() { std::thread([] {}).detach(); }\n"));
  const std::vector<ReasonCase> cases = {
      {Layer::kCompile, static_check, "forbidden_call", true, "starts processes"},
      {Layer::kCompile, threads, "forbidden_call", true, "creates threads"},
      {Layer::kCompile, "compilation failed: kernel.cpp:3:5: error: 'sigmoid' was not declared",
       "does_not_compile", false, ""},
      {Layer::kCompile,
       "the kernel runs code when it is loaded (a static constructor, a global object with a "
       "constructor, or a header such as <iostream> that adds one); kernels must not run code "
       "outside their call",
       "code_outside_call", true, ""},
      {Layer::kCompile, "the kernel defines memcmp, a C library function, which could shadow "
                        "what the harness relies on",
       "shadows_harness", true, "memcmp"},
      {Layer::kSandbox,
       "the kernel made a forbidden system call: clone (starting threads or processes) on case "
       "'tiny' (n=7)",
       "sandbox_violation", true, "clone (starting threads or processes)"},
      {Layer::kSandbox, "the kernel made a forbidden system call: openat (opening files)",
       "sandbox_violation", true, "openat"},
      {Layer::kSandbox,
       "the kernel made a forbidden system call with signals blocked and was killed by SIGSYS "
       "(that is what starting threads or processes looks like) while running",
       "sandbox_violation", true, "SIGSYS"},
      {Layer::kSandbox, "the kernel left 1 extra thread(s) running after it returned",
       "sandbox_violation", true, "threads"},
      {Layer::kSandbox, validator::PrintedReason(22, "VERDICT: accepted"), "prints_output", true,
       ""},
      {Layer::kSandbox, "the kernel ended the process (exited with status 0) while running",
       "ends_process", true, "exited with status 0"},
      {Layer::kSandbox, "the kernel was killed by SIGTERM (terminated) while running",
       "ends_process", true, ""},
      {Layer::kSandbox, "the kernel was killed by SIGSEGV (segmentation fault) while running",
       "crash", false, "SIGSEGV"},
      {Layer::kSandbox, "the kernel ran past the 3.0 s time limit and was killed", "timeout",
       false, ""},
      {Layer::kNumeric,
       "wrote past the end of output y (4 bytes after its last element, index 6) on case 'tiny'",
       "touches_memory", true, "wrote past the end of output y"},
      {Layer::kNumeric, "the kernel modified its input x (first at index 0) on case 'tiny'",
       "touches_memory", true, "modified input x"},
      {Layer::kNumeric,
       "wrong results: 7 of 7 elements of y differ: the kernel never wrote the output",
       "skips_work", true, ""},
      {Layer::kNumeric,
       "wrong results: 3 of 7 elements of y differ (3 never written); first at index 4",
       "wrong_numbers", false, ""},
      {Layer::kNumeric, "nondeterministic: a second run on the same inputs gave different bits "
                        "in output y (both within tolerance)",
       "nondeterministic", false, ""},
      {Layer::kPerf,
       "candidate: wrong results in a timed run on fresh data (round 2, data set 1): 5 of "
       "4096 elements of y differ",
       "timed_run_differs", true, ""},
      {Layer::kPerf, "candidate: wrong results in a timed run on data set 0: 4096 of 4096 "
                     "elements of y differ: the kernel never wrote the output",
       "timed_run_differs", true, ""},
      {Layer::kPerf,
       "candidate: wrote past the end of output y (1 bytes after its last element, index 9) "
       "during a timed run",
       "touches_memory", true, ""},
      {Layer::kPerf,
       "not measurably faster: speedup 0.98x (95% CI 0.95x-1.01x) does not clear the 1.05x bar",
       "not_faster", false, ""},
      {Layer::kPerf, "baseline: the kernel was killed by SIGSEGV during timed runs", "other",
       false, ""},
  };
  for (const ReasonCase& c : cases) {
    const Classification got = ClassifyRejection(c.layer, c.reason);
    EXPECT_STREQ(Info(got.id).name, c.expected) << c.reason;
    EXPECT_EQ(Info(got.id).cheat, c.cheat) << c.reason;
    EXPECT_NE(got.detail.find(c.detail), std::string::npos) << got.detail << " / " << c.reason;
  }
}

TEST(EvalClassifyTest, EveryClassHasAUniqueNameThatParsesBack) {
  for (const ClassInfo& info : AllClasses()) {
    EXPECT_EQ(Info(info.id).name, info.name);
    ASSERT_TRUE(ParseClass(info.name).has_value()) << info.name;
    EXPECT_EQ(*ParseClass(info.name), info.id);
  }
  EXPECT_FALSE(ParseClass("honest").has_value());
}

// A judged attempt: accepted at `speedup`, or rejected at `layer` for `reason`, with a timing
// when `speedup` > 0.
optimize::Attempt Judged(bool accepted, Layer layer, const std::string& reason, double speedup,
                         std::string outcome = "") {
  optimize::Attempt a;
  a.code = "extern \"C\" void k() {}";
  validator::Verdict v;
  v.accepted = accepted;
  v.layer = layer;
  v.reason = reason;
  v.compile.ok = layer != Layer::kCompile;
  if (speedup > 0) {
    v.perf = validator::PerfReport{};
    v.perf->rounds = 5;
    v.perf->speedup = speedup;
  }
  a.verdict = v;
  a.outcome = outcome.empty() ? (accepted ? "accepted" : "rejected") : outcome;
  return a;
}

optimize::OptimizeReport ReportOf(const std::string& op, std::vector<optimize::Attempt> attempts) {
  optimize::OptimizeReport r;
  r.op = op;
  r.attempts = std::move(attempts);
  return r;
}

TEST(EvalScoreTest, CountsCandidatesCompiledCorrectAndTheBestSpeedup) {
  optimize::Attempt no_code;
  no_code.outcome = "no code";
  optimize::Attempt broken_validator;
  broken_validator.outcome = "error";
  const OpScore s = ScoreReport(ReportOf(
      "swish",
      {Judged(false, Layer::kCompile, "compilation failed: x", 0), no_code, broken_validator,
       Judged(false, Layer::kPerf, "not measurably faster: speedup 1.03x", 1.03),
       Judged(true, Layer::kNone, "compiles, ... 2.50x faster", 2.5),
       Judged(true, Layer::kNone, "compiles, ... 2.50x faster", 2.5, "duplicate"),
       Judged(false, Layer::kPerf, "candidate: wrong results in a timed run on data set 0", 9.0)}));
  EXPECT_EQ(s.candidates, 6);  // the validator's own error is not the model's
  EXPECT_EQ(s.validator_errors, 1);
  EXPECT_EQ(s.compiled, 4);
  EXPECT_EQ(s.correct, 3);  // not faster, accepted, its duplicate; the timed-run cheat is not
  EXPECT_EQ(s.accepted, 2);
  ASSERT_TRUE(s.best_speedup.has_value());
  EXPECT_DOUBLE_EQ(*s.best_speedup, 2.5);  // the 9x of a cheat does not count
  EXPECT_EQ(s.rejected_by_layer.at("compile"), 1);
  EXPECT_EQ(s.rejected_by_layer.at("perf"), 2);
  EXPECT_EQ(s.rejected_by_class.at("no_code"), 1);
  EXPECT_EQ(s.rejected_by_class.at("timed_run_differs"), 1);
  EXPECT_EQ(s.CheatClasses(), std::vector<std::string>{"timed_run_differs"});
  EXPECT_DOUBLE_EQ(s.compile_rate(), 4.0 / 6);
  EXPECT_DOUBLE_EQ(s.correct_rate(), 3.0 / 6);
}

OpScore WithBest(const std::string& op, std::optional<double> best, int correct = 1) {
  OpScore s;
  s.op = op;
  s.candidates = 2;
  s.correct = best ? correct : 0;
  s.best_speedup = best;
  return s;
}

// KernelBench: fast_p = (1/N) * #{ops correct with speedup > p}, over every op of the run.
TEST(EvalScoreTest, FastPIsTheShareOfOpsWithACorrectKernelFasterThanP) {
  std::vector<OpScore> ops = {WithBest("a", 2.5), WithBest("b", 1.4), WithBest("c", 0.8),
                              WithBest("d", std::nullopt), FailedOp("e", "HTTP 500")};
  EXPECT_DOUBLE_EQ(FastP(ops, 0), 3.0 / 5);  // a, b, c are correct
  EXPECT_DOUBLE_EQ(FastP(ops, 1), 2.0 / 5);  // a, b
  EXPECT_DOUBLE_EQ(FastP(ops, 2), 1.0 / 5);  // a
  // Strictly greater: a speedup of exactly p does not count.
  EXPECT_DOUBLE_EQ(FastP({WithBest("x", 1.0), WithBest("y", 2.0)}, 1), 0.5);
  EXPECT_DOUBLE_EQ(FastP({}, 1), 0);
  const Totals t = Total(ops);
  EXPECT_EQ(t.ops, 5);
  EXPECT_EQ(t.ops_failed, 1);
  EXPECT_DOUBLE_EQ(t.fast_1, 0.4);
  ASSERT_TRUE(t.geomean_speedup.has_value());
  EXPECT_NEAR(*t.geomean_speedup, std::cbrt(2.5 * 1.4 * 0.8), 1e-12);
  EXPECT_FALSE(t.tokens.has_value());  // no op reported usage
}

TEST(EvalScoreTest, TokensAddUpOnlyWhereReported) {
  std::vector<OpScore> ops = {WithBest("a", 2.0), WithBest("b", 2.0)};
  ops[0].tokens = TokenUsage{100, 20, 120};
  const Totals t = Total(ops);
  ASSERT_TRUE(t.tokens.has_value());
  EXPECT_EQ(t.tokens->total, 120);
}

EvalRun SampleRun() {
  EvalRun run;
  run.id = "eval-20250101T000000Z-abcdef";
  run.model = "m";
  run.server = "http://127.0.0.1:1/v1";
  run.started_at = "2025-01-01T00:00:00Z";
  run.machine = "test CPU";
  run.samples = 1;
  run.rounds = 0;
  run.seed = 7;
  run.ops.push_back(ScoreReport(ReportOf(
      "swish", {Judged(true, Layer::kNone, "compiles, ... faster", 2.5)})));
  OpScore cheat = ScoreReport(ReportOf(
      "relu", {Judged(false, Layer::kCompile,
                      validator::DescribeFindings(validator::CheckSource("int f() { return system(\"x\"); }")),
                      0)}));
  cheat.attempts[0].code = "// </script><script>alert(1)</script>\nint x;";
  run.ops.push_back(cheat);
  run.ops.push_back(FailedOp("add", "the LLM server answered HTTP 500: boom <b>"));
  run.ops.back().family = "binary";
  run.ops[0].tokens = TokenUsage{10, 5, 15};
  return run;
}

TEST(EvalRunTest, JsonRoundTripsAndDerivesTheFiguresAgain) {
  const EvalRun run = SampleRun();
  const nlohmann::json doc = run.ToJson();
  EXPECT_EQ(doc["schema"], kEvalSchema);
  EXPECT_TRUE(doc["cheated"].get<bool>());
  EXPECT_EQ(doc["cheats"][0]["class"], "forbidden_call");
  EXPECT_EQ(doc["overall"]["fast_1"], 1.0 / 3);
  EXPECT_EQ(doc["ops"][2]["status"], "failed");
  auto back = EvalRun::FromJson(doc);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), doc);
  // A document that claims figures its attempts do not support is read by its attempts.
  nlohmann::json forged = doc;
  forged["ops"][1]["correct"] = 5;
  forged["ops"][1]["attempts"][0]["cheat"] = false;
  auto read = EvalRun::FromJson(forged);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->ops[1].correct, 0);
  EXPECT_TRUE(read->ops[1].attempts[0].cheat);
  forged["budget"] = "x";
  EXPECT_FALSE(EvalRun::FromJson(forged).ok());
}

TEST(EvalRenderTest, TheTableNamesTheCheatAndTheHtmlEscapesEverything) {
  const EvalRun run = SampleRun();
  const std::string table = RenderTable(run);
  EXPECT_NE(table.find("CHEATED: m @ http://127.0.0.1:1/v1"), std::string::npos) << table;
  EXPECT_NE(table.find("forbidden call (relu: starts processes"), std::string::npos) << table;
  EXPECT_NE(table.find("add                binary"), std::string::npos);
  const std::string html = RenderHtml(run);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos);
  EXPECT_NE(html.find("boom &lt;b&gt;"), std::string::npos);
  EXPECT_EQ(page::Escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
}

TEST(EvalStoreTest, SavesListsBestFirstAndReadsRunsBack) {
  auto dir = TempDir::Create("cannbot-eval-store");
  ASSERT_TRUE(dir.ok());
  auto store = EvalStore::Open(dir->File("sub/evals.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EvalRun weak = SampleRun();
  EvalRun strong = SampleRun();
  strong.id = "eval-20250102T000000Z-000001";
  strong.model = "strong";
  strong.ops.pop_back();  // no failed op: fast_1 1/2 instead of 1/3
  ASSERT_TRUE((*store)->Save(weak).ok());
  ASSERT_TRUE((*store)->Save(strong).ok());
  ASSERT_TRUE((*store)->Save(strong).ok());  // saving again replaces
  auto board = (*store)->List();
  ASSERT_TRUE(board.ok()) << board.status().ToString();
  ASSERT_EQ(board->size(), 2u);
  EXPECT_EQ((*board)[0].model, "strong");
  EXPECT_DOUBLE_EQ((*board)[0].fast_1, 0.5);
  EXPECT_EQ((*board)[1].cheat_classes, std::vector<std::string>{"forbidden_call"});
  EXPECT_EQ((*board)[1].tokens, 15);
  auto back = (*store)->Get(weak.id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ToJson(), weak.ToJson());
  EXPECT_EQ((*store)->Get("nope").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(EvalStore::DefaultPath("/var/lib/cannbot/cannbot.db"), "/var/lib/cannbot/evals.db");
}

}  // namespace
}  // namespace cannbot::eval
