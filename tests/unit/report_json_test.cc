// The optimisation report's JSON is lossless: FromJson(ToJson(r)) is r again, for random
// reports (property tests) and for the values nested in it (verdicts, kernel checks,
// diagnoses); a missing or mistyped field is an error that names it.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/optimize/report.h"

namespace cannbot::report_json_test {
namespace {

using Json = nlohmann::json;
using optimize::Attempt;
using optimize::OptimizeReport;
using validator::Layer;

// Random values of every kind a report holds, from a seeded generator.
class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  bool Coin() { return Below(2) == 0; }
  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // ASCII, quotes, backslashes, control characters, multi-byte UTF-8 (always valid UTF-8).
  std::string Text() {
    static const char* const kPieces[] = {"a", "Z", "7", " ", "\"", "'", "\\", "\n", "\t", "\x01",
                                          "/", "{", "}", "é", "中文", "😀", "<b>", "%s"};
    std::string out;
    const int pieces = static_cast<int>(std::size(kPieces));
    for (int i = Below(12); i > 0; --i) out += kPieces[Below(pieces)];
    return out;
  }
  std::vector<std::string> Texts() {
    std::vector<std::string> out(static_cast<size_t>(Below(4)));
    for (std::string& s : out) s = Text();
    return out;
  }
  // 0, negatives, tiny and large magnitudes, integers, fractions (always finite).
  double Number() {
    switch (Below(7)) {
      case 0: return 0;
      case 1: return -std::uniform_real_distribution<double>(0, 1e6)(rng_);
      case 2: return std::uniform_real_distribution<double>(1e150, 1e200)(rng_);
      case 3: return std::uniform_real_distribution<double>(1e-300, 1e-200)(rng_);
      case 4: return static_cast<double>(Below(100000));
      case 5: return 1.0 / 3.0 * Below(1000);
      default: return std::uniform_real_distribution<double>(0, 10)(rng_);
    }
  }
  // An error figure: sometimes infinite or NaN (written as null in JSON).
  double Error() {
    switch (Below(8)) {
      case 0: return std::numeric_limits<double>::infinity();
      case 1: return -std::numeric_limits<double>::infinity();
      case 2: return std::numeric_limits<double>::quiet_NaN();
      default: return Number();
    }
  }
  int64_t Int64() {
    switch (Below(4)) {
      case 0: return 0;
      case 1: return std::numeric_limits<int64_t>::max();
      case 2: return -static_cast<int64_t>(Below(1000));
      default: return Below(1 << 20);
    }
  }
  uint64_t Seed() { return Coin() ? std::numeric_limits<uint64_t>::max() - Below(10) : rng_(); }
  const char* Pick(std::initializer_list<const char*> options) {
    return options.begin()[Below(static_cast<int>(options.size()))];
  }
  Layer PickLayer(std::initializer_list<Layer> options) {
    return options.begin()[Below(static_cast<int>(options.size()))];
  }

  // ok, cached, timed_out, shared_object_path (never in a report), log, reason, command,
  // seconds.
  validator::CompileResult Compile() {
    return {Coin(), Coin(), Coin(), "", Text(), Text(), Text(), Number()};
  }

  validator::NumericReport Numeric() {
    validator::NumericReport n;
    n.ok = Coin();
    n.layer = n.ok ? Layer::kNone : PickLayer({Layer::kNumeric, Layer::kSandbox});
    n.reason = Text();
    for (int i = Below(4); i > 0; --i) {
      // elements, mismatches, never_written, max abs, max rel and mean rel error, first_bad.
      validator::Comparison cmp{Int64(), Int64(), Int64(), Error(), Error(), Error(), {}};
      if (Coin()) cmp.first_bad = validator::ElementMismatch{Int64(), Error(), Error(), Coin()};
      // label, shape, comparison, tolerance, problem, seconds.
      const std::string problem = Coin() ? "" : Text();
      n.cases.push_back({Text(), Text(), cmp, {Number(), Number()}, problem, Number()});
    }
    n.child_output = Coin() ? "" : Text();
    n.sandbox_warnings = Texts();
    return n;
  }

  validator::KernelTiming Timing() {
    return {Number(), Number(), Number(), Number(), Below(100) - 3};
  }

  validator::PerfReport Perf() {
    validator::PerfReport p;
    p.ok = Coin();
    p.layer = p.ok ? Layer::kNone : PickLayer({Layer::kPerf, Layer::kSandbox});
    p.reason = Text();
    p.shape = Text();
    p.speedup = Number();
    p.speedup_ci = {Number(), Number()};
    p.min_speedup = Number();
    p.rounds = Below(3) == 0 ? 0 : Below(60);
    p.channel_overhead_seconds = Number();
    p.baseline = Timing();
    p.candidate = Timing();
    if (Coin()) {
      p.edges.ran = true;
      p.edges.inputs = Text();
      p.edges.inputs_subnormal = Coin();
      for (validator::EdgeTiming* t : {&p.edges.baseline, &p.edges.candidate}) {
        *t = {Number(), Number(), Number(), static_cast<uint32_t>(Below(64)),
              static_cast<uint32_t>(Below(64)), Coin()};
      }
      p.edges.warning = Coin() ? "" : Text();
    } else if (Coin()) {
      p.edges.inputs = "the op declares no edge values";
    }
    p.child_output = Coin() ? "" : Text();
    p.estimated = Coin();
    p.device = Coin() ? "" : Text();
    p.estimate_detail = Coin() ? "" : Text();
    if (Coin()) {
      profile::KernelProfile k;
      k.name = "kernel " + std::to_string(Below(100));  // profiles name their kernels
      k.core_type = "AI_VECTOR_CORE";
      k.launches = 1;
      k.duration_us = 0.5 * Below(100000);
      k.block_dim = 1 + Below(64);
      k.metrics["vec_ratio"] = {0.25 * Below(5), "ratio", Coin() ? "" : "estimated"};
      p.candidate_profile = k;
    }
    return p;
  }

  // Accepted, or rejected at a random layer, with the details the layers reached.
  validator::Verdict Verdict(bool accepted) {
    validator::Verdict v;
    v.op = Text();
    v.target = Pick({"cpu", "ascendc", ""});
    v.seed = Seed();
    v.accepted = accepted;
    v.layer = accepted ? Layer::kNone
                       : PickLayer({Layer::kCompile, Layer::kSandbox, Layer::kNumeric, Layer::kPerf});
    v.reason = Text();
    v.candidate_name = Text();
    v.baseline_name = Coin() ? "reference" : Text();
    v.compile = Compile();
    if (v.layer != Layer::kCompile || Coin()) v.numeric = Numeric();
    if (accepted || v.layer == Layer::kPerf || Below(4) == 0) v.perf = Perf();
    if (Coin()) {
      v.machine = validator::MachineModel{.machine_id = Text(),
                                          .cpu_key = Text(),
                                          .cpu_name = Text(),
                                          .microarchitecture = Text(),
                                          .features = Text(),
                                          .logical_cpus = Below(64) + 1,
                                          .vector_isa = Text(),
                                          .stream_gbps = 1 + std::fabs(Number()),
                                          .read_gbps = 1 + std::fabs(Number()),
                                          .copy_gbps = 1 + std::fabs(Number()),
                                          .peak_gflops = 1 + std::fabs(Number())};
    }
    v.seconds = Number();
    return v;
  }

  validator::KernelCheck Check() {
    validator::KernelCheck k;
    k.ok = Coin();
    k.layer = k.ok ? Layer::kNone : PickLayer({Layer::kCompile, Layer::kSandbox, Layer::kNumeric});
    k.reason = Text();
    k.compile = Compile();
    if (k.layer != Layer::kCompile) k.numeric = Numeric();
    return k;
  }

  diagnosis::Diagnosis Diagnosis() {
    diagnosis::Diagnosis d;
    d.kernel = Text();
    d.picked_because = Text();
    for (int i = Below(4); i > 0; --i) {
      diagnosis::Finding f;
      f.bottleneck = Pick({diagnosis::kMemoryBound, diagnosis::kControlFlow, "other"});
      f.title = Text();
      f.severity = static_cast<diagnosis::Severity>(Below(3));
      f.strength = Number();
      f.summary = Text();
      for (int e = Below(4); e > 0; --e) {
        f.evidence.push_back({Text(), Number(), Text(), Pick({"<", "<=", ">", ">="}), Number(),
                              Text(), Coin() ? "" : Text(), Coin() ? "" : Text()});
      }
      f.remedies = Texts();
      d.findings.push_back(f);
    }
    d.unjudged = Texts();
    d.coverage = {Below(40), Below(40), Texts(), Texts(), Texts()};
    return d;
  }

  OptimizeReport Report() {
    OptimizeReport r;
    r.op = Text();
    r.original_name = Text();
    r.original_code = Text();
    r.provider = Text();
    r.profile_source = Text();
    r.kernel_check = Check();
    r.diagnosis = Diagnosis();
    r.skills = Texts();
    r.notes = Texts();
    for (int i = Below(6); i > 0; --i) {
      // round, origin, prompt, response, code, explanation, outcome, detail, verdict, seconds.
      Attempt a{Below(5) - 1, Text(), Text(), Text(), Text(), Text(),
                Pick({"accepted", "rejected", "no code", "duplicate", "error"}), Text(),
                std::nullopt, Number()};
      if (Below(4) != 0) a.verdict = Verdict(Below(4) == 0);
      r.attempts.push_back(a);
    }
    if (!r.attempts.empty() && Coin()) {
      r.best = Below(static_cast<int>(r.attempts.size()));
      Attempt& best = r.attempts[static_cast<size_t>(r.best)];
      best.verdict = Verdict(true);
      best.outcome = "accepted";
    }
    r.diff = Text();
    r.seconds = Number();
    return r;
  }

 private:
  std::mt19937 rng_;
};

// Equal, NaN included (a NaN equals a NaN of the same sign).
bool Same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  }
  return a == b;
}

// Through text, as a remote client gets it.
Json Wire(const Json& json) { return Json::parse(json.dump()); }

template <typename T>
T RoundTrip(const T& value) {
  const Json json = value.ToJson();
  Result<T> back = T::FromJson(Wire(json));
  EXPECT_TRUE(back.ok()) << back.status().ToString();
  if (!back.ok()) return T();
  EXPECT_EQ(back->ToJson(), json) << Json::diff(json, back->ToJson()).dump(1);
  return std::move(back).value();
}

void ExpectSameNumeric(const std::optional<validator::NumericReport>& a,
                       const std::optional<validator::NumericReport>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  ASSERT_EQ(a->cases.size(), b->cases.size());
  EXPECT_EQ(a->layer, b->layer);
  EXPECT_EQ(a->child_output, b->child_output);
  for (size_t i = 0; i < a->cases.size(); ++i) {
    const validator::Comparison& x = a->cases[i].comparison;
    const validator::Comparison& y = b->cases[i].comparison;
    EXPECT_EQ(a->cases[i].label, b->cases[i].label);
    EXPECT_EQ(x.never_written, y.never_written);
    EXPECT_TRUE(Same(x.max_abs_error, y.max_abs_error));
    EXPECT_TRUE(Same(x.mean_rel_error, y.mean_rel_error));
    ASSERT_EQ(x.first_bad.has_value(), y.first_bad.has_value());
    if (x.first_bad) {
      EXPECT_TRUE(Same(x.first_bad->got, y.first_bad->got));
      EXPECT_TRUE(Same(x.first_bad->expected, y.first_bad->expected));
    }
  }
}

void ExpectSameVerdict(const validator::Verdict& a, const validator::Verdict& b) {
  EXPECT_EQ(a.accepted, b.accepted);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.compile.timed_out, b.compile.timed_out);
  EXPECT_EQ(a.compile.log, b.compile.log);
  ExpectSameNumeric(a.numeric, b.numeric);
  ASSERT_EQ(a.perf.has_value(), b.perf.has_value());
  if (a.perf) {
    EXPECT_EQ(a.perf->speedup, b.perf->speedup);
    EXPECT_EQ(a.perf->channel_overhead_seconds, b.perf->channel_overhead_seconds);
    EXPECT_EQ(a.perf->baseline.median_seconds, b.perf->baseline.median_seconds);
    EXPECT_EQ(a.perf->candidate.calls_per_batch, b.perf->candidate.calls_per_batch);
    EXPECT_EQ(a.perf->device, b.perf->device);
    EXPECT_EQ(validator::EdgeCheckToJson(a.perf->edges), validator::EdgeCheckToJson(b.perf->edges));
  }
  ASSERT_EQ(a.machine.has_value(), b.machine.has_value());
  if (a.machine) {
    EXPECT_EQ(a.machine->ToJson(), b.machine->ToJson());
  }
  EXPECT_EQ(a.RenderText(), b.RenderText());
}

void ExpectSameCheck(const validator::KernelCheck& a, const validator::KernelCheck& b) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.compile.log, b.compile.log);
  ExpectSameNumeric(a.numeric, b.numeric);
}

void ExpectSameDiagnosis(const diagnosis::Diagnosis& a, const diagnosis::Diagnosis& b) {
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t f = 0; f < a.findings.size(); ++f) {
    EXPECT_EQ(a.findings[f].severity, b.findings[f].severity);
    ASSERT_EQ(a.findings[f].evidence.size(), b.findings[f].evidence.size());
    for (size_t e = 0; e < a.findings[f].evidence.size(); ++e) {
      EXPECT_EQ(a.findings[f].evidence[e].derivation, b.findings[f].evidence[e].derivation);
      EXPECT_EQ(a.findings[f].evidence[e].value, b.findings[f].evidence[e].value);
    }
  }
  EXPECT_EQ(a.coverage, b.coverage);
  EXPECT_EQ(a.RenderText(), b.RenderText());
}

// `count` random values from `make(gen)` round-trip and `same(value, back)` holds.
template <typename Make, typename Compare>
void RoundTripMany(uint32_t seed, int count, Make make, Compare same) {
  Gen gen(seed);
  for (int i = 0; i < count; ++i) {
    SCOPED_TRACE("value " + std::to_string(i));
    const auto value = make(gen);
    same(value, RoundTrip(value));
  }
}

void ExpectSameReport(const OptimizeReport& r, const OptimizeReport& back) {
  EXPECT_EQ(back.op, r.op);
  EXPECT_EQ(back.original_code, r.original_code);
  EXPECT_EQ(back.best, r.best);
  EXPECT_EQ(back.skills, r.skills);
  ExpectSameCheck(r.kernel_check, back.kernel_check);
  ExpectSameDiagnosis(r.diagnosis, back.diagnosis);
  ASSERT_EQ(back.attempts.size(), r.attempts.size());
  for (size_t a = 0; a < r.attempts.size(); ++a) {
    EXPECT_EQ(back.attempts[a].prompt, r.attempts[a].prompt);
    ASSERT_EQ(back.attempts[a].verdict.has_value(), r.attempts[a].verdict.has_value());
    if (r.attempts[a].verdict) ExpectSameVerdict(*r.attempts[a].verdict, *back.attempts[a].verdict);
  }
  EXPECT_EQ(back.RenderText(), r.RenderText());
  // In memory (no text in between) it round-trips too.
  Result<OptimizeReport> direct = OptimizeReport::FromJson(r.ToJson());
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(direct->ToJson(), r.ToJson());
}

TEST(ReportJsonTest, RandomReportsRoundTrip) {
  RoundTripMany(20240611, 300, [](Gen& g) { return g.Report(); }, ExpectSameReport);
}

TEST(ReportJsonTest, RandomVerdictsRoundTrip) {
  RoundTripMany(7, 300, [](Gen& g) { return g.Verdict(g.Coin()); }, ExpectSameVerdict);
}

TEST(ReportJsonTest, RandomKernelChecksRoundTrip) {
  RoundTripMany(11, 200, [](Gen& g) { return g.Check(); }, ExpectSameCheck);
}

TEST(ReportJsonTest, RandomDiagnosesRoundTrip) {
  RoundTripMany(13, 200, [](Gen& g) { return g.Diagnosis(); }, ExpectSameDiagnosis);
}

// A report with every part present: a kernel check with a failing case, a diagnosis with
// evidence, three attempts (the third accepted and timed).
OptimizeReport Sample() {
  Gen gen(3);
  OptimizeReport r;
  r.op = "relu";
  r.kernel_check.numeric = gen.Numeric();
  r.kernel_check.numeric->cases.resize(1);
  r.kernel_check.numeric->cases[0].comparison.first_bad =
      validator::ElementMismatch{3, 1.0, 2.0, false};
  r.kernel_check.numeric->cases[0].comparison.max_abs_error = INFINITY;
  diagnosis::Finding finding;
  finding.evidence.resize(1);
  r.diagnosis.findings.push_back(finding);
  r.skills = {"vectorize: no vector instructions", "unroll"};
  r.attempts.resize(3);
  r.attempts[2].verdict = gen.Verdict(true);
  r.attempts[2].verdict->numeric = gen.Numeric();
  r.attempts[2].verdict->numeric->cases.resize(1);
  r.attempts[2].verdict->numeric->cases[0].comparison.first_bad.reset();
  r.attempts[2].verdict->machine = validator::MachineModel{.machine_id = "id",
                                                           .cpu_key = "cpu key",
                                                           .cpu_name = "cpu",
                                                           .microarchitecture = "",
                                                           .features = "avx2 fma",
                                                           .logical_cpus = 2,
                                                           .vector_isa = "avx2+fma",
                                                           .stream_gbps = 20,
                                                           .read_gbps = 25,
                                                           .copy_gbps = 18,
                                                           .peak_gflops = 100};
  r.best = 2;
  return r;
}

struct BadInput {
  const char* pointer;  // where the sample's JSON is changed (RFC 6901)
  Json value;           // the new value; a discarded value removes the key
  const char* error;    // what the error must say
};

class ReportJsonBadInputTest : public testing::TestWithParam<BadInput> {};

TEST_P(ReportJsonBadInputTest, NamesTheField) {
  const BadInput& bad = GetParam();
  Json json = Sample().ToJson();
  ASSERT_TRUE(OptimizeReport::FromJson(json).ok());
  const Json::json_pointer pointer(bad.pointer);
  if (bad.value.is_discarded()) {
    json.at(pointer.parent_pointer()).erase(pointer.back());
  } else {
    json.at(pointer) = bad.value;
  }
  Result<OptimizeReport> back = OptimizeReport::FromJson(json);
  ASSERT_FALSE(back.ok()) << bad.pointer;
  EXPECT_EQ(back.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(back.status().message(), bad.error);
}

const Json kRemove = Json(Json::value_t::discarded);
const char* const kNotABest =
    "report.best_attempt: expected null or the index of an attempt with a timed verdict";

INSTANTIATE_TEST_SUITE_P(
    ReportJson, ReportJsonBadInputTest,
    testing::Values(
        BadInput{"/attempts/2/verdict/perf/speedup", "fast",
                 "report.attempts[2].verdict.perf.speedup: expected a number"},
        BadInput{"/op", 3, "report.op: expected a string"},
        BadInput{"/original_code", kRemove, "report.original_code: missing"},
        BadInput{"/attempts", Json::object(), "report.attempts: expected an array"},
        BadInput{"/attempts/1", "attempt", "report.attempts[1]: expected an object"},
        BadInput{"/skills/1", 5, "report.skills[1]: expected a string"},
        BadInput{"/attempts/0/round", 10000000000LL,
                 "report.attempts[0].round: expected an integer"},
        BadInput{"/attempts/2/verdict/seed", -1,
                 "report.attempts[2].verdict.seed: expected a non-negative integer"},
        BadInput{"/attempts/2/verdict/verdict", "maybe",
                 "report.attempts[2].verdict.verdict: expected \"accepted\" or \"rejected\""},
        BadInput{"/attempts/2/verdict/layer", false,
                 "report.attempts[2].verdict.layer: expected a string"},
        BadInput{"/attempts/2/verdict/layer", "linker",
                 "report.attempts[2].verdict.layer: expected \"compile\", \"sandbox\", "
                 "\"numeric\", \"perf\", \"\" or null"},
        BadInput{"/attempts/2/verdict/compile/ok", "yes",
                 "report.attempts[2].verdict.compile.ok: expected true or false"},
        BadInput{"/attempts/2/verdict/numeric/cases/0/elements", 1.5,
                 "report.attempts[2].verdict.numeric.cases[0].elements: expected an integer"},
        BadInput{"/attempts/2/verdict/perf/ci95", Json::array({1.0}),
                 "report.attempts[2].verdict.perf.ci95: expected [low, high]"},
        BadInput{"/attempts/2/verdict/perf/baseline/median_seconds", true,
                 "report.attempts[2].verdict.perf.baseline.median_seconds: expected a number"},
        BadInput{"/attempts/2/verdict/perf/candidate", kRemove,
                 "report.attempts[2].verdict.perf.candidate: missing"},
        BadInput{"/attempts/2/verdict/machine/stream_gbps", -1.0,
                 "report.attempts[2].verdict.machine: machine model has non-positive figures"},
        BadInput{"/kernel_check/compile/log", nullptr,
                 "report.kernel_check.compile.log: expected a string"},
        BadInput{"/kernel_check/numeric/cases/0/first_bad/index", "3",
                 "report.kernel_check.numeric.cases[0].first_bad.index: expected an integer"},
        BadInput{"/kernel_check/numeric/cases/0/non_finite/max_abs_error", "huge",
                 "report.kernel_check.numeric.cases[0].max_abs_error: non_finite.max_abs_error "
                 "is not inf, -inf, nan or -nan"},
        BadInput{"/diagnosis/findings/0/severity", "fatal",
                 "report.diagnosis.findings[0].severity: expected \"info\", \"warning\" or "
                 "\"critical\""},
        BadInput{"/diagnosis/findings/0/evidence/0/value", "12%",
                 "report.diagnosis.findings[0].evidence[0].value: expected a number"},
        BadInput{"/diagnosis/unjudged", "none",
                 "report.diagnosis.unjudged: expected an array of strings"},
        BadInput{"/best_attempt", 7, kNotABest}, BadInput{"/best_attempt", 0, kNotABest},
        BadInput{"/kernel_check", Json::array(), "report.kernel_check: expected an object"}),
    // Stable names (the default prints the parameter's bytes, pointers included, which differ
    // between the run that lists the tests and the one that runs them).
    [](const testing::TestParamInfo<BadInput>& info) {
      std::string name = "case" + std::to_string(info.index);
      for (const char* c = info.param.pointer; *c != '\0'; ++c) {
        if (std::isalnum(static_cast<unsigned char>(*c))) name += *c;
      }
      return name;
    });

TEST(ReportJsonTest, ADocumentThatIsNotAnObjectIsRejected) {
  Result<OptimizeReport> back = OptimizeReport::FromJson(Json::array());
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(), "report: expected an object");
}

// The contract's keys stay where they were; a non-finite error is null, "non_finite" says which.
TEST(ReportJsonTest, KeepsTheContractKeys) {
  const Json json = Sample().ToJson();
  for (const char* key : {"op", "original", "provider", "profile_source", "diagnosis", "skills",
                          "notes", "attempts", "found", "best_attempt", "diff", "seconds",
                          "kernel", "before_after"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  const Json& verdict = json["attempts"][2]["verdict"];
  EXPECT_EQ(verdict["verdict"], "accepted");
  EXPECT_TRUE(verdict["layer"].is_null());
  EXPECT_TRUE(verdict["perf"]["ci95"].is_array());
  EXPECT_TRUE(verdict["perf"]["candidate"]["median_ms"].is_number());
  const Json& kcase = json["kernel_check"]["numeric"]["cases"][0];
  EXPECT_TRUE(kcase["max_abs_error"].is_null());
  EXPECT_EQ(kcase["non_finite"]["max_abs_error"], "inf");
  EXPECT_EQ(json["kernel_check"]["layer"], "");
}

// Before "non_finite" existed a null error meant an infinite one.
TEST(ReportJsonTest, ABareNullErrorReadsAsInfinity) {
  Json json = Sample().ToJson();
  json["kernel_check"]["numeric"]["cases"][0].erase("non_finite");
  Result<OptimizeReport> back = OptimizeReport::FromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->kernel_check.numeric->cases[0].comparison.max_abs_error,
            std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace cannbot::report_json_test
