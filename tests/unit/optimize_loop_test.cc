#include "cannbot/optimize/loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/optimize/candidate_judge.h"
#include "cannbot/optimize/provider.h"
#include "cannbot/ops/registry.h"
#include "cannbot/util/env.h"
#include "unit_support.h"

namespace cannbot::optimize {
namespace {

using cannbot::test::Contains;

// A clock that only moves when a test moves it.
class ManualClockEnv : public EnvWrapper {
 public:
  ManualClockEnv() : EnvWrapper(Env::Default()) {}
  double NowSeconds() override { return now; }
  double now = 1000;
};

// Verdicts by candidate code, and every request it was asked to judge.
class ScriptedJudge : public CandidateJudge {
 public:
  Result<validator::Verdict> Validate(const validator::ValidationRequest& request) override {
    seen.push_back(request);
    if (after_each) after_each();
    const std::string& code = request.candidate.text;
    if (auto e = errors.find(code); e != errors.end()) return e->second;
    if (auto v = verdicts.find(code); v != verdicts.end()) return v->second;
    return Status::Internal("no scripted verdict for '" + code + "'");
  }
  int TimesJudged(const std::string& code) const {
    return static_cast<int>(std::count_if(seen.begin(), seen.end(), [&](const auto& r) {
      return r.candidate.text == code;
    }));
  }

  std::map<std::string, validator::Verdict> verdicts;
  std::map<std::string, Status> errors;
  std::function<void()> after_each;  // runs inside each validation (a clock, a cancel)
  std::vector<validator::ValidationRequest> seen;
};

// Proposals per round (past the end of the script: nothing more), and every request.
class ScriptedProvider : public Provider {
 public:
  std::string Describe() const override { return "scripted provider"; }
  Result<std::vector<Proposal>> Propose(const ProposalRequest& request) override {
    asked.push_back(request);
    if (during_propose) during_propose();
    if (asked.size() > script.size()) return std::vector<Proposal>{};
    return script[asked.size() - 1];
  }

  std::vector<Result<std::vector<Proposal>>> script;
  std::function<void()> during_propose;
  std::vector<ProposalRequest> asked;
};

Proposal LoopCandidate(const std::string& code) {
  Proposal p;
  p.origin = "scripted " + code.substr(0, code.find('\n'));
  p.code = code;
  return p;
}

// One round of proposals, one per code.
std::vector<Proposal> ProposalsOf(std::initializer_list<std::string> codes) {
  std::vector<Proposal> proposals;
  for (const std::string& code : codes) proposals.push_back(LoopCandidate(code));
  return proposals;
}

validator::Verdict CompileFailureVerdict(const std::string& log) {
  validator::Verdict v;
  v.layer = cannbot::validator::Layer::kCompile;
  v.reason = "the candidate does not compile";
  v.compile.log = log;
  return v;
}

validator::Verdict NumericFailureVerdict() {
  validator::Verdict v;
  v.layer = cannbot::validator::Layer::kNumeric;
  v.reason = "wrong results on case odd";
  v.compile.ok = true;
  v.numeric.emplace();
  validator::NumericCase bad;
  bad.label = "odd";
  bad.shape = "n=1037";
  bad.problem = "max abs error 0.5 above tolerance";
  v.numeric->cases.push_back(bad);
  return v;
}

validator::Verdict AcceptedVerdict(double speedup, double roofline) {
  validator::Verdict v;
  v.accepted = true;
  v.reason = "faster and correct";
  v.compile.ok = true;
  v.perf.emplace();
  v.perf->ok = true;
  v.perf->rounds = 10;
  v.perf->speedup = speedup;
  v.perf->candidate.roofline_fraction = roofline;
  return v;
}

const char kSlowCode[] = "void swish_a() {}\n";
const char kMidCode[] = "void swish_b() {}\n";
const char kFastCode[] = "void swish_c() {}\n";
const char kOtherCode[] = "void swish_d() {}\n";

class OptimizeLoopTest : public ::testing::Test {
 protected:
  OptimizeLoopTest() {
    op_.name = "swish";
    request_.op = &op_;
    request_.original = {"naive.cpp", "void swish_naive() {}\n"};
    request_.seed = 42;
    config_.samples = 4;
    config_.rounds = 3;
    config_.good_enough_roofline = 0.8;
    config_.time_budget_seconds = 100;
  }

  Status Run() {
    Optimizer optimizer(&judge_, &provider_, config_, &clock_);
    return optimizer.Run(request_, &report_);
  }
  void Script(std::vector<Result<std::vector<Proposal>>> rounds) {
    provider_.script = std::move(rounds);
  }
  // Round 0 accepts a kernel at `roofline` of the machine; round 1 would offer a faster one.
  Status RunWithFirstRooflineAt(double roofline) {
    judge_.verdicts[kSlowCode] = AcceptedVerdict(1.5, roofline);
    judge_.verdicts[kFastCode] = AcceptedVerdict(3.0, 0.95);
    Script({ProposalsOf({kSlowCode}), ProposalsOf({kFastCode})});
    return Run();
  }
  bool HasNote(const std::string& part) const {
    return std::any_of(report_.notes.begin(), report_.notes.end(),
                       [&](const std::string& note) { return Contains(note, part); });
  }

  ops::OpSpec op_;
  OptimizeRequest request_;
  LoopConfig config_;
  ManualClockEnv clock_;
  ScriptedJudge judge_;
  ScriptedProvider provider_;
  OptimizeReport report_;
};

TEST_F(OptimizeLoopTest, FailuresOfOneRoundAreFedBackInTheNextMostPromisingFirst) {
  judge_.verdicts[kSlowCode] = CompileFailureVerdict("kernel.cpp:3:5: error: expected ';'");
  judge_.verdicts[kMidCode] = NumericFailureVerdict();
  judge_.verdicts[kFastCode] = AcceptedVerdict(1.5, 0.2);
  Script({ProposalsOf({kSlowCode, kMidCode}), ProposalsOf({kFastCode})});
  ASSERT_TRUE(Run().ok());

  ASSERT_GE(provider_.asked.size(), 2u);
  EXPECT_TRUE(provider_.asked[0].failures.empty());
  const ProposalRequest& repair = provider_.asked[1];
  EXPECT_EQ(repair.round, 1);
  ASSERT_EQ(repair.failures.size(), 2u);
  // The numeric failure got further than the compile failure, so it comes first.
  EXPECT_EQ(repair.failures[0].code, kMidCode);
  EXPECT_TRUE(Contains(repair.failures[0].feedback, "numeric layer"));
  EXPECT_TRUE(Contains(repair.failures[0].feedback, "case odd (n=1037): FAILED"));
  EXPECT_EQ(repair.failures[1].code, kSlowCode);
  EXPECT_TRUE(Contains(repair.failures[1].feedback, "error: expected ';'"));
  EXPECT_EQ(report_.best, 2);
}

TEST_F(OptimizeLoopTest, ACandidateWithoutCodeIsNotJudgedButItsProblemIsFedBack) {
  Proposal empty;
  empty.origin = "llm round 0 sample 1";
  empty.problem = "the answer contains no code block";
  Script({std::vector<Proposal>{empty}});
  ASSERT_TRUE(Run().ok());
  EXPECT_TRUE(judge_.seen.empty());
  ASSERT_EQ(report_.attempts.size(), 1u);
  EXPECT_EQ(report_.attempts[0].outcome, "no code");
  ASSERT_EQ(provider_.asked.size(), 2u);
  ASSERT_EQ(provider_.asked[1].failures.size(), 1u);
  EXPECT_EQ(provider_.asked[1].failures[0].feedback, "the answer contains no code block");
}

TEST_F(OptimizeLoopTest, BestOfNKeepsTheFastestAcceptedCandidate) {
  judge_.verdicts[kSlowCode] = AcceptedVerdict(1.3, 0.1);
  judge_.verdicts[kFastCode] = AcceptedVerdict(2.4, 0.3);
  judge_.verdicts[kMidCode] = AcceptedVerdict(1.9, 0.2);
  judge_.verdicts[kOtherCode] = AcceptedVerdict(1.1, 0.1);
  Script({ProposalsOf({kSlowCode, kFastCode, kMidCode}), ProposalsOf({kOtherCode})});
  ASSERT_TRUE(Run().ok());

  ASSERT_EQ(report_.attempts.size(), 4u);
  EXPECT_EQ(report_.best, 1);
  ASSERT_NE(report_.Best(), nullptr);
  EXPECT_EQ(report_.Best()->code, kFastCode);
  EXPECT_TRUE(Contains(report_.diff, "+void swish_c() {}")) << report_.diff;
  // The next round improves on the best so far, and is told how it did.
  ASSERT_GE(provider_.asked.size(), 2u);
  EXPECT_EQ(provider_.asked[1].best_code, kFastCode);
  EXPECT_TRUE(Contains(provider_.asked[1].best_feedback, "speedup 2.40x"));
}

TEST_F(OptimizeLoopTest, IdenticalCandidatesAreJudgedOnce) {
  judge_.verdicts[kSlowCode] = CompileFailureVerdict("error: boom");
  Script({ProposalsOf({kSlowCode, "void swish_a() {}   \n"}),  // the same, trailing blanks
          ProposalsOf({kSlowCode})});
  ASSERT_TRUE(Run().ok());

  EXPECT_EQ(judge_.seen.size(), 1u);
  ASSERT_EQ(report_.attempts.size(), 3u);
  for (size_t i : {1u, 2u}) {
    EXPECT_EQ(report_.attempts[i].outcome, "duplicate");
    EXPECT_TRUE(Contains(report_.attempts[i].detail, "attempt 1"));
    ASSERT_TRUE(report_.attempts[i].verdict.has_value());
    EXPECT_EQ(report_.attempts[i].verdict->layer, cannbot::validator::Layer::kCompile);
  }
}

TEST_F(OptimizeLoopTest, StopsOnceTheBestReachesTheGoodEnoughRoofline) {
  ASSERT_TRUE(RunWithFirstRooflineAt(0.85).ok());
  EXPECT_EQ(provider_.asked.size(), 1u);
  EXPECT_EQ(judge_.TimesJudged(kFastCode), 0);
  EXPECT_EQ(report_.best, 0);
  EXPECT_TRUE(HasNote("stopped early: the best kernel reaches 85%"));
}

TEST_F(OptimizeLoopTest, KeepsImprovingBelowTheGoodEnoughRoofline) {
  ASSERT_TRUE(RunWithFirstRooflineAt(0.5).ok());
  EXPECT_EQ(judge_.TimesJudged(kFastCode), 1);
  EXPECT_EQ(report_.best, 1);
  EXPECT_FALSE(HasNote("reaches 50%"));
  EXPECT_TRUE(HasNote("reaches 95%"));  // round 1's kernel is good enough
}

TEST_F(OptimizeLoopTest, NoValidationStartsAfterTheTimeBudget) {
  config_.time_budget_seconds = 10;
  for (const char* code : {kSlowCode, kMidCode, kFastCode, kOtherCode}) {
    judge_.verdicts[code] = CompileFailureVerdict("error: boom");
  }
  judge_.after_each = [&] { clock_.now += 6; };  // each validation takes 6 s
  Script({ProposalsOf({kSlowCode, kMidCode, kFastCode}), ProposalsOf({kOtherCode})});
  ASSERT_TRUE(Run().ok());

  // Started at 0 s and 6 s; at 12 s the budget of 10 s has run out.
  EXPECT_EQ(judge_.seen.size(), 2u);
  EXPECT_EQ(judge_.TimesJudged(kFastCode), 0);
  EXPECT_EQ(report_.attempts.size(), 2u);
  EXPECT_EQ(provider_.asked.size(), 1u);
  EXPECT_TRUE(HasNote("the time budget of 10 s ran out"));
}

TEST_F(OptimizeLoopTest, ASlowProviderCanSpendTheWholeBudget) {
  config_.time_budget_seconds = 10;
  judge_.verdicts[kSlowCode] = AcceptedVerdict(2.0, 0.1);
  provider_.during_propose = [&] { clock_.now += 11; };
  Script({ProposalsOf({kSlowCode})});
  ASSERT_TRUE(Run().ok());
  EXPECT_TRUE(judge_.seen.empty());
  EXPECT_TRUE(HasNote("time budget"));
}

TEST_F(OptimizeLoopTest, CancellationStopsBeforeTheNextValidation) {
  std::atomic<bool> stop{false};
  config_.stop = &stop;
  judge_.verdicts[kSlowCode] = CompileFailureVerdict("error: boom");
  judge_.after_each = [&] { stop = true; };  // cancelled during the first validation
  Script({ProposalsOf({kSlowCode, kMidCode}), ProposalsOf({kFastCode})});
  ASSERT_TRUE(Run().ok());

  EXPECT_EQ(judge_.seen.size(), 1u);
  EXPECT_EQ(provider_.asked.size(), 1u);
  EXPECT_TRUE(HasNote("interrupted"));
}

TEST_F(OptimizeLoopTest, CancelledBeforeTheStartValidatesNothing) {
  std::atomic<bool> stop{true};
  config_.stop = &stop;
  judge_.verdicts[kSlowCode] = AcceptedVerdict(2.0, 0.1);
  Script({ProposalsOf({kSlowCode})});
  ASSERT_TRUE(Run().ok());
  EXPECT_TRUE(judge_.seen.empty());
  EXPECT_TRUE(report_.attempts.empty());
  EXPECT_FALSE(report_.found());
}

TEST_F(OptimizeLoopTest, AProviderErrorBeforeAnyAttemptIsTheResult) {
  Script({Status::Unavailable("the LLM server is down")});
  const Status status = Run();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(status.message(), "the LLM server is down");
  EXPECT_TRUE(report_.attempts.empty());
}

TEST_F(OptimizeLoopTest, AProviderErrorAfterAttemptsBecomesANote) {
  judge_.verdicts[kSlowCode] = CompileFailureVerdict("error: boom");
  Script({ProposalsOf({kSlowCode}),
          Status::Unavailable("the LLM server is down")});
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(report_.attempts.size(), 1u);
  EXPECT_TRUE(HasNote("round 1: the LLM server is down"));
}

TEST_F(OptimizeLoopTest, AnEmptyProposalListEndsTheLoop) {
  judge_.verdicts[kSlowCode] = CompileFailureVerdict("error: boom");
  judge_.verdicts[kFastCode] = AcceptedVerdict(2.0, 0.1);
  Script({ProposalsOf({kSlowCode}), std::vector<Proposal>{},
          ProposalsOf({kFastCode})});
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(provider_.asked.size(), 2u);
  EXPECT_EQ(judge_.TimesJudged(kFastCode), 0);
  EXPECT_FALSE(report_.found());
}

TEST_F(OptimizeLoopTest, AJudgeErrorIsAnAttemptNotAFailedRun) {
  judge_.errors[kSlowCode] = Status::IoError("cannot spawn the runner");
  judge_.verdicts[kFastCode] = AcceptedVerdict(2.0, 0.1);
  Script({ProposalsOf({kSlowCode, kFastCode})});
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(report_.attempts.size(), 2u);
  EXPECT_EQ(report_.attempts[0].outcome, "error");
  EXPECT_EQ(report_.attempts[0].detail, "cannot spawn the runner");
  EXPECT_EQ(report_.best, 1);
}

TEST_F(OptimizeLoopTest, TheJudgeIsAskedAboutTheUsersKernelWithTheRunsSettings) {
  config_.min_speedup = 1.2;
  judge_.verdicts[kSlowCode] = AcceptedVerdict(2.0, 0.1);
  Script({ProposalsOf({kSlowCode})});
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(judge_.seen.size(), 1u);
  const validator::ValidationRequest& asked = judge_.seen[0];
  EXPECT_EQ(asked.op, "swish");
  EXPECT_EQ(asked.candidate.text, kSlowCode);
  ASSERT_TRUE(asked.baseline.has_value());
  EXPECT_EQ(asked.baseline->text, request_.original.text);
  EXPECT_TRUE(asked.baseline_checked);
  EXPECT_EQ(asked.seed, std::optional<uint64_t>(42));
  EXPECT_EQ(asked.min_speedup, std::optional<double>(1.2));
}

TEST(OptimizeLoopValidatorJudgeTest, ForwardsToTheValidator) {
  const ops::Registry no_ops(std::vector<ops::OpSpec>{});
  validator::Validator validator(validator::ValidatorConfig{}, nullptr, no_ops);
  ValidatorJudge judge(&validator);
  validator::ValidationRequest request;
  request.op = "no-such-op";
  auto verdict = judge.Validate(request);
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status().code(), Status::Code::kNotFound);
  EXPECT_TRUE(Contains(verdict.status().message(), "no-such-op"));
}

}  // namespace
}  // namespace cannbot::optimize
