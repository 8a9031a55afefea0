#include "cannbot/optimize/report.h"

#include <cstdio>
#include <sstream>

#include "cannbot/util/json_fields.h"

namespace cannbot::optimize {
namespace {

std::string Layer(const Attempt& a) {
  if (!a.verdict) return "-";
  return a.verdict->accepted ? "accepted" : validator::LayerName(a.verdict->layer);
}

std::string Speedup(const Attempt& a) {
  if (!a.verdict || !a.verdict->perf || a.verdict->perf->rounds == 0) return "-";
  char text[48];
  std::snprintf(text, sizeof(text), "%.2fx", a.verdict->perf->speedup);
  return text;
}

nlohmann::json AttemptJson(const Attempt& a) {
  return {{"round", a.round},       {"origin", a.origin},       {"outcome", a.outcome},
          {"detail", a.detail},     {"explanation", a.explanation}, {"code", a.code},
          {"prompt", a.prompt},     {"response", a.response},   {"seconds", a.seconds},
          {"verdict", a.verdict ? a.verdict->ToJson() : nlohmann::json(nullptr)}};
}

Result<Attempt> AttemptFromJson(const nlohmann::json& json, const std::string& path) {
  Attempt a;
  JsonFields f(json, path);
  f.Read("round", &a.round);
  f.Read("origin", &a.origin);
  f.Read("prompt", &a.prompt);
  f.Read("response", &a.response);
  f.Read("code", &a.code);
  f.Read("explanation", &a.explanation);
  f.Read("outcome", &a.outcome);
  f.Read("detail", &a.detail);
  f.Object("verdict", &a.verdict, &validator::Verdict::FromJson);
  f.Read("seconds", &a.seconds);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return a;
}

}  // namespace

std::string ProgressLine(const Attempt& a) {
  char line[512];
  std::snprintf(line, sizeof(line), "round %d  %-28.28s  %-9s %-8s %s", a.round, a.origin.c_str(),
                Layer(a).c_str(), Speedup(a).c_str(), a.detail.substr(0, 110).c_str());
  return line;
}

nlohmann::json OptimizeReport::ToJson() const {
  nlohmann::json attempts_json = nlohmann::json::array();
  for (const Attempt& a : attempts) attempts_json.push_back(AttemptJson(a));
  nlohmann::json out = {{"op", op},
                        {"original", original_name},
                        {"original_code", original_code},
                        {"provider", provider},
                        {"profile_source", profile_source},
                        {"kernel_check", kernel_check.ToJson()},
                        {"diagnosis", diagnosis.ToJson()},
                        {"skills", skills},
                        {"notes", notes},
                        {"attempts", attempts_json},
                        {"found", found()},
                        {"best_attempt", found() ? nlohmann::json(best) : nlohmann::json(nullptr)},
                        {"diff", diff},
                        {"seconds", seconds}};
  if (const Attempt* b = Best()) {
    const validator::PerfReport& perf = *b->verdict->perf;
    out["kernel"] = b->code;
    out["before_after"] = {
        {"shape", perf.shape},
        {"baseline_ms", perf.baseline.median_seconds * 1e3},
        {"candidate_ms", perf.candidate.median_seconds * 1e3},
        {"speedup", perf.speedup},
        {"ci95", {perf.speedup_ci.low, perf.speedup_ci.high}},
        {"baseline_gbps", perf.baseline.gbps},
        {"candidate_gbps", perf.candidate.gbps},
        {"baseline_gflops", perf.baseline.gflops},
        {"candidate_gflops", perf.candidate.gflops},
        {"baseline_roofline_fraction", perf.baseline.roofline_fraction},
        {"candidate_roofline_fraction", perf.candidate.roofline_fraction}};
  }
  return out;
}

// "found", "kernel" and "before_after" are derived from the best attempt and not read.
Result<OptimizeReport> OptimizeReport::FromJson(const nlohmann::json& json,
                                                const std::string& path) {
  OptimizeReport r;
  JsonFields f(json, path);
  f.Read("op", &r.op);
  f.Read("original", &r.original_name);
  f.Read("original_code", &r.original_code);
  f.Read("provider", &r.provider);
  f.Read("profile_source", &r.profile_source);
  f.Object("kernel_check", &r.kernel_check, &validator::KernelCheck::FromJson);
  f.Object("diagnosis", &r.diagnosis, &diagnosis::Diagnosis::FromJson);
  f.Read("skills", &r.skills);
  f.Read("notes", &r.notes);
  f.Array("attempts", &r.attempts, AttemptFromJson);
  std::optional<int> best;
  f.Read("best_attempt", &best);
  r.best = best.value_or(-1);
  f.Read("diff", &r.diff);
  f.Read("seconds", &r.seconds);
  // ToJson and RenderText show the best attempt's timings: it must have them.
  if (f.ok() && r.best != -1) {
    const Attempt* b = r.best >= 0 && static_cast<size_t>(r.best) < r.attempts.size()
                           ? &r.attempts[static_cast<size_t>(r.best)]
                           : nullptr;
    if (b == nullptr || !b->verdict || !b->verdict->perf) {
      f.Fail("best_attempt", "expected null or the index of an attempt with a timed verdict");
    }
  }
  CANNBOT_RETURN_IF_ERROR(f.status());
  return r;
}

std::string OptimizeReport::RenderText() const {
  std::ostringstream out;
  out << "cannbot suggest: op " << op << ", kernel " << original_name << "\n";
  out << "  provider: " << provider << "\n  profile:  " << profile_source << "\n\n";
  out << "Diagnosis\n" << diagnosis.RenderText() << "\n";
  out << "Skills used\n";
  if (skills.empty()) out << "  (none)\n";
  for (const std::string& s : skills) out << "  - " << s << "\n";
  for (const std::string& n : notes) out << "  note: " << n << "\n";
  out << "\nAttempts\n";
  char line[512];
  std::snprintf(line, sizeof(line), "  %-3s %-5s %-30s %-9s %-8s %s\n", "#", "round", "origin",
                "layer", "speedup", "detail");
  out << line;
  for (size_t i = 0; i < attempts.size(); ++i) {
    const Attempt& a = attempts[i];
    std::snprintf(line, sizeof(line), "  %-3zu %-5d %-30.30s %-9s %-8s %s\n", i + 1, a.round,
                  a.origin.c_str(), Layer(a).c_str(), Speedup(a).c_str(),
                  a.detail.substr(0, 140).c_str());
    out << line;
  }
  if (const Attempt* b = Best()) {
    const validator::PerfReport& perf = *b->verdict->perf;
    out << "\nBefore / after (" << perf.shape << ")\n";
    std::snprintf(line, sizeof(line), "  %-10s %12s %9s %9s %9s\n", "kernel", "time/call", "GB/s",
                  "GFLOP/s", "roofline");
    out << line;
    for (const auto& [name, t] : {std::pair<const char*, const validator::KernelTiming&>{
                                      "before", perf.baseline},
                                  {"after", perf.candidate}}) {
      std::snprintf(line, sizeof(line), "  %-10s %9.3f ms %9.2f %9.2f %8.1f%%\n", name,
                    t.median_seconds * 1e3, t.gbps, t.gflops, t.roofline_fraction * 100);
      out << line;
    }
    std::snprintf(line, sizeof(line), "  speedup    %.2fx (95%% CI %.2fx-%.2fx)\n", perf.speedup,
                  perf.speedup_ci.low, perf.speedup_ci.high);
    out << line;
    if (!b->explanation.empty()) out << "\nWhat changed (as the provider put it)\n" << b->explanation << "\n";
    out << "\nDiff\n" << diff;
    out << "\nRESULT: a validated kernel " << Speedup(*b) << " faster (attempt " << best + 1
        << ")\n";
  } else {
    out << "\nRESULT: no candidate was accepted\n";
  }
  return out.str();
}

}  // namespace cannbot::optimize
