#include "cannbot/optimize/loop.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cannbot/util/diff.h"

namespace cannbot::optimize {
namespace {

// Trailing whitespace does not make a different kernel.
std::string Normalized(const std::string& code) {
  std::stringstream in(code);
  std::string line, out;
  while (std::getline(in, line)) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    out += line + "\n";
  }
  return out;
}

// How far an attempt got: failures that reached later layers are repaired first.
int Progress(const Attempt& a) {
  if (!a.verdict) return 0;
  const validator::Layer layer = a.verdict->layer;
  if (layer == validator::Layer::kCompile) return 1;
  if (layer == validator::Layer::kSandbox) return 2;
  if (layer == validator::Layer::kNumeric) return 3;
  return 4;
}

std::string CompilerErrors(const std::string& log) {
  std::stringstream in(log);
  std::string line, out;
  int kept = 0;
  while (std::getline(in, line) && kept < 40) {
    if (line.find("error") != std::string::npos || line.find("note") != std::string::npos ||
        line.find("warning") != std::string::npos || line.find('^') != std::string::npos) {
      out += line + "\n";
      ++kept;
    }
  }
  return out.empty() ? log.substr(0, 3000) : out;
}

TriedCandidate Summary(const Attempt& a) {
  TriedCandidate t;
  t.code = a.code;
  t.accepted = a.outcome == "accepted";
  if (a.verdict && a.verdict->perf) {
    const validator::PerfReport& perf = *a.verdict->perf;
    t.speedup = perf.speedup;
    t.roofline_fraction = perf.candidate.roofline_fraction;
    t.edge_trap = !perf.edges.warning.empty();
  }
  return t;
}

}  // namespace

std::string Feedback(const Attempt& a) {
  if (!a.verdict) return a.detail;
  const validator::Verdict& v = *a.verdict;
  std::ostringstream out;
  out << "Rejected at the " << validator::LayerName(v.layer) << " layer: " << v.reason << "\n";
  if (v.layer == validator::Layer::kCompile && !v.compile.log.empty()) {
    out << "\nCompiler output:\n" << CompilerErrors(v.compile.log);
  }
  if (v.numeric) {
    for (const validator::NumericCase& c : v.numeric->cases) {
      char line[256];
      std::snprintf(line, sizeof(line), "case %s (%s): %s, max abs error %.3g, max rel error %.3g\n",
                    c.label.c_str(), c.shape.c_str(), c.problem.empty() ? "ok" : "FAILED",
                    c.comparison.max_abs_error, c.comparison.max_rel_error);
      out << line;
    }
  }
  if (v.perf && v.perf->rounds > 0) {
    char line[256];
    std::snprintf(line, sizeof(line),
                  "timing on %s: yours %.3f ms, the kernel to beat %.3f ms (speedup %.2fx, 95%% "
                  "CI %.2fx-%.2fx; needs >= %.2fx); yours reaches %.0f%% of the machine's "
                  "roofline\n",
                  v.perf->shape.c_str(), v.perf->candidate.median_seconds * 1e3,
                  v.perf->baseline.median_seconds * 1e3, v.perf->speedup, v.perf->speedup_ci.low,
                  v.perf->speedup_ci.high, v.perf->min_speedup,
                  v.perf->candidate.roofline_fraction * 100);
    out << line;
    if (!v.perf->edges.warning.empty()) out << "warning: " << v.perf->edges.warning << "\n";
  }
  return out.str();
}

Optimizer::Optimizer(CandidateJudge* judge, Provider* provider, LoopConfig config, Env* env)
    : judge_(judge), provider_(provider), config_(config), env_(env) {}

Optimizer::Optimizer(validator::Validator* validator, Provider* provider, LoopConfig config)
    : owned_judge_(std::make_unique<ValidatorJudge>(validator)),
      judge_(owned_judge_.get()),
      provider_(provider),
      config_(config),
      env_(Env::Default()) {}

Attempt Optimizer::Evaluate(const OptimizeRequest& request, const Proposal& proposal, int round,
                            const std::vector<Attempt>& earlier) {
  Attempt a;
  a.round = round;
  a.origin = proposal.origin;
  a.prompt = proposal.prompt;
  a.response = proposal.response;
  a.code = proposal.code;
  a.explanation = proposal.explanation;
  if (proposal.code.empty()) {
    a.outcome = "no code";
    a.detail = proposal.problem.empty() ? "the answer contains no code" : proposal.problem;
    return a;
  }
  const std::string normalized = Normalized(proposal.code);
  for (size_t i = 0; i < earlier.size(); ++i) {
    if (!earlier[i].code.empty() && Normalized(earlier[i].code) == normalized) {
      a.outcome = "duplicate";
      a.detail = "identical to attempt " + std::to_string(i + 1) + ", not validated again";
      a.verdict = earlier[i].verdict;
      return a;
    }
  }
  validator::ValidationRequest v;
  v.op = request.op->name;
  v.spec = request.op;  // the job's own op when it came with the request
  v.candidate = {a.origin, proposal.code};
  v.baseline = request.original;
  v.baseline_checked = true;
  v.target = request.target;
  v.seed = request.seed;
  if (config_.min_speedup > 0) v.min_speedup = config_.min_speedup;
  auto verdict = judge_->Validate(v);
  if (!verdict.ok()) {
    a.outcome = "error";
    a.detail = verdict.status().message();
    return a;
  }
  a.seconds = verdict->seconds;
  a.outcome = verdict->accepted ? "accepted" : "rejected";
  a.detail = verdict->reason;
  a.verdict = std::move(verdict).value();
  return a;
}

Status Optimizer::Run(const OptimizeRequest& request, OptimizeReport* report,
                      const ProgressFn& progress) {
  const double start = env_->NowSeconds();
  auto out_of_time = [&] { return env_->NowSeconds() - start > config_.time_budget_seconds; };
  auto stopped = [&] { return config_.stop != nullptr && config_.stop->load(); };
  std::vector<Attempt>& attempts = report->attempts;
  std::vector<Failure> failures;
  for (int round = 0; round <= config_.rounds; ++round) {
    ProposalRequest ask;
    ask.op = request.op;
    ask.source = request.original.text;
    ask.diagnosis = &request.diagnosis;
    ask.skills = request.skills;
    ask.hardware = request.hardware;
    ask.target = request.target;
    ask.round = round;
    ask.samples = config_.samples;
    ask.stop = config_.stop;
    ask.failures = failures;
    for (const Attempt& a : attempts) {
      if (!a.code.empty() && a.outcome != "duplicate") ask.tried.push_back(Summary(a));
    }
    if (const Attempt* best = report->Best()) {
      ask.best_code = best->code;
      ask.best_feedback = Feedback(*best);
    }
    if (round > 0 && ask.failures.empty() && ask.best_code.empty()) break;  // nothing to go on
    if (progress) {
      progress({ProgressEvent::Kind::kAsking, round,
                "asking " + provider_->Describe() + " for up to " +
                    std::to_string(config_.samples) + " candidates",
                nullptr});
    }
    auto proposals = provider_->Propose(ask);
    if (!proposals.ok() && stopped()) {  // a cancel abandoned the question: report what there is
      report->notes.push_back("stopped: interrupted while asking " + provider_->Describe());
      break;
    }
    if (!proposals.ok()) {
      if (attempts.empty()) return proposals.status();
      report->notes.push_back("round " + std::to_string(round) + ": " +
                              proposals.status().message());
      break;
    }
    if (proposals->empty()) break;  // the provider has nothing more to offer
    std::vector<size_t> this_round;
    for (const Proposal& p : *proposals) {
      if (stopped()) {
        report->notes.push_back("stopped: interrupted before every candidate was validated");
        break;
      }
      if (out_of_time()) {
        report->notes.push_back("stopped: the time budget of " +
                                std::to_string(static_cast<int>(config_.time_budget_seconds)) +
                                " s ran out");
        break;
      }
      if (progress) {
        progress({ProgressEvent::Kind::kValidating, round, "validating " + p.origin, nullptr});
      }
      attempts.push_back(Evaluate(request, p, round, attempts));
      this_round.push_back(attempts.size() - 1);
      if (progress) {
        progress({ProgressEvent::Kind::kAttemptDone, round, ProgressLine(attempts.back()),
                  &attempts.back()});
      }
      const Attempt& a = attempts.back();
      if (a.outcome == "accepted") {
        const Attempt* best = report->Best();
        if (!best || a.verdict->perf->speedup > best->verdict->perf->speedup) {
          report->best = static_cast<int>(attempts.size() - 1);
        }
      }
    }
    failures.clear();
    std::vector<size_t> failed;
    for (size_t i : this_round) {
      const std::string& o = attempts[i].outcome;
      if (o == "rejected" || o == "no code") failed.push_back(i);
    }
    std::stable_sort(failed.begin(), failed.end(), [&](size_t x, size_t y) {
      return Progress(attempts[x]) > Progress(attempts[y]);
    });
    for (size_t i : failed) failures.push_back({attempts[i].code, Feedback(attempts[i])});
    if (out_of_time() || stopped()) break;
    const Attempt* best = report->Best();
    if (best && best->verdict->perf->candidate.roofline_fraction >= config_.good_enough_roofline) {
      report->notes.push_back("stopped early: the best kernel reaches " +
                              std::to_string(static_cast<int>(
                                  best->verdict->perf->candidate.roofline_fraction * 100)) +
                              "% of this machine's roofline");
      break;
    }
  }
  if (const Attempt* best = report->Best()) {
    report->diff = UnifiedDiff(request.original.text, best->code, request.original.name,
                               "suggested/" + request.op->name + ".cpp");
  }
  return Status::Ok();
}

}  // namespace cannbot::optimize
