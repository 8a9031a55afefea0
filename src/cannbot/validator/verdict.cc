#include "cannbot/validator/verdict.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace cannbot::validator {
namespace {

// JSON has no infinity; an infinite error (NaN where a number was due) becomes null.
nlohmann::json Finite(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json CompileJson(const CompileResult& c) {
  return {{"ok", c.ok},           {"cached", c.cached}, {"seconds", c.seconds},
          {"command", c.command}, {"log", c.log},       {"reason", c.reason}};
}

nlohmann::json NumericJson(const NumericReport& n) {
  nlohmann::json cases = nlohmann::json::array();
  for (const NumericCase& c : n.cases) {
    nlohmann::json one = {{"label", c.label},
                          {"shape", c.shape},
                          {"ok", c.problem.empty()},
                          {"elements", c.comparison.elements},
                          {"mismatches", c.comparison.mismatches},
                          {"max_abs_error", Finite(c.comparison.max_abs_error)},
                          {"max_rel_error", Finite(c.comparison.max_rel_error)},
                          {"mean_rel_error", Finite(c.comparison.mean_rel_error)},
                          {"atol", c.tolerance.atol},
                          {"rtol", c.tolerance.rtol},
                          {"seconds", c.seconds},
                          {"problem", c.problem}};
    if (c.comparison.first_bad) {
      const ElementMismatch& m = *c.comparison.first_bad;
      one["first_bad"] = {{"index", m.index},
                          {"expected", Finite(m.expected)},
                          {"got", Finite(m.got)},
                          {"never_written", m.never_written}};
    }
    cases.push_back(one);
  }
  nlohmann::json out = {{"ok", n.ok}, {"reason", n.reason}, {"cases", cases},
                        {"sandbox_warnings", n.sandbox_warnings}};
  if (!n.child_output.empty()) out["kernel_output"] = n.child_output;
  return out;
}

nlohmann::json TimingJson(const KernelTiming& t) {
  return {{"median_ms", t.median_seconds * 1e3}, {"gbps", t.gbps},
          {"gflops", t.gflops},                  {"roofline_fraction", t.roofline_fraction},
          {"calls_per_batch", t.calls_per_batch}};
}

nlohmann::json PerfJson(const PerfReport& p) {
  nlohmann::json out = {{"ok", p.ok},
                        {"reason", p.reason},
                        {"shape", p.shape},
                        {"speedup", p.speedup},
                        {"ci95", {p.speedup_ci.low, p.speedup_ci.high}},
                        {"min_speedup", p.min_speedup},
                        {"rounds", p.rounds},
                        {"channel_overhead_us", p.channel_overhead_seconds * 1e6}};
  if (p.rounds > 0) {
    out["baseline"] = TimingJson(p.baseline);
    out["candidate"] = TimingJson(p.candidate);
  }
  out["estimated"] = p.estimated;
  if (p.estimated) {
    out["device"] = p.device;
    out["estimate_detail"] = p.estimate_detail;
  }
  if (!p.child_output.empty()) out["kernel_output"] = p.child_output;
  return out;
}

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return text;
}

std::string LayerLine(const char* layer, const char* result, const std::string& detail) {
  return Format("  %-9s %-6s %s\n", layer, result, detail.c_str());
}

}  // namespace

nlohmann::json Verdict::ToJson() const {
  nlohmann::json out = {
      {"verdict", accepted ? "accepted" : "rejected"},
      {"layer", layer.empty() ? nlohmann::json(nullptr) : nlohmann::json(layer)},
      {"reason", reason},
      {"op", op},
      {"target", target},
      {"seed", seed},
      {"candidate", candidate_name},
      {"baseline", baseline_name},
      {"compile", CompileJson(compile)},
      {"numeric", numeric ? NumericJson(*numeric) : nlohmann::json(nullptr)},
      {"perf", perf ? PerfJson(*perf) : nlohmann::json(nullptr)},
      {"machine", machine ? machine->ToJson() : nlohmann::json(nullptr)},
      {"seconds", seconds},
  };
  return out;
}

std::string Verdict::RenderText() const {
  std::ostringstream out;
  out << "cannbot validate: op " << op << " (target " << target << "), seed " << seed << "\n";
  out << "  candidate  " << candidate_name << "\n";
  out << "  baseline   " << baseline_name << "\n\n";
  out << Format("  %-9s %-6s %s\n", "layer", "result", "detail");
  const bool compile_failed = !compile.ok;
  out << LayerLine("compile", compile_failed ? "FAIL" : "pass",
                   compile_failed ? compile.reason
                                  : Format("%.2f s%s", compile.seconds,
                                           compile.cached ? " (cached)" : ""));
  const bool sandbox_failed = layer == "sandbox";
  if (numeric) {
    double worst = 0;
    for (const NumericCase& c : numeric->cases) worst = std::fmax(worst, c.comparison.max_rel_error);
    out << LayerLine(sandbox_failed ? "sandbox" : "numeric", numeric->ok ? "pass" : "FAIL",
                     numeric->ok ? Format("%zu cases, max rel error %.2g", numeric->cases.size(),
                                          worst)
                                 : numeric->reason);
  } else if (!compile_failed) {
    out << LayerLine("numeric", "-", "not reached");
  }
  if (perf) {
    out << LayerLine("perf", perf->ok ? "pass" : "FAIL", perf->reason);
  } else {
    out << LayerLine("perf", "-", "not reached");
  }
  if (numeric && !numeric->cases.empty()) {
    out << "\n" << Format("  %-10s %-34s %11s %11s %11s  %s\n", "case", "shape", "max abs err",
                          "max rel err", "MERE", "result");
    for (const NumericCase& c : numeric->cases) {
      out << Format("  %-10s %-34.34s %11.3g %11.3g %11.3g  %s\n", c.label.c_str(),
                    c.shape.c_str(), c.comparison.max_abs_error, c.comparison.max_rel_error,
                    c.comparison.mean_rel_error, c.problem.empty() ? "ok" : "FAIL");
    }
  }
  if (perf && perf->estimated) {
    out << "\n  perf shape " << perf->shape << ", estimated for " << perf->device
        << " by the cost model (not measured)\n";
    out << Format("  baseline   %9.3f us (estimated)\n  candidate  %9.3f us (estimated)\n",
                  perf->baseline.median_seconds * 1e6, perf->candidate.median_seconds * 1e6);
    out << "  " << perf->estimate_detail << "\n";
  } else if (perf && perf->rounds > 0) {
    out << "\n  perf shape " << perf->shape << ", " << perf->rounds << " rounds";
    if (machine) {
      out << Format("; roofline: %.1f GB/s, %.0f GFLOP/s (%s)", machine->stream_gbps,
                    machine->peak_gflops, machine->vector_isa.c_str());
    }
    out << "\n" << Format("  %-10s %12s %9s %9s %9s\n", "kernel", "time/call", "GB/s",
                          "GFLOP/s", "roofline");
    for (const auto& [name, t] : {std::pair<const char*, const KernelTiming&>{"baseline",
                                                                               perf->baseline},
                                  {"candidate", perf->candidate}}) {
      out << Format("  %-10s %9.3f ms %9.2f %9.2f %8.1f%%\n", name, t.median_seconds * 1e3,
                    t.gbps, t.gflops, t.roofline_fraction * 100);
    }
    out << Format("  speedup    %.2fx (95%% CI %.2fx-%.2fx), bar %.2fx\n", perf->speedup,
                  perf->speedup_ci.low, perf->speedup_ci.high, perf->min_speedup);
  }
  if (numeric) {
    for (const std::string& warning : numeric->sandbox_warnings) {
      out << "\n  warning: sandbox: " << warning;
    }
    if (!numeric->sandbox_warnings.empty()) out << "\n";
  }
  out << "\nVERDICT: " << (accepted ? "accepted" : "rejected");
  if (!accepted) out << " at the " << layer << " layer";
  out << ": " << reason << "\n";
  const std::string& printed = perf ? perf->child_output
                                     : (numeric ? numeric->child_output : std::string());
  if (!printed.empty()) out << "\nThe kernel printed (first bytes):\n" << printed << "\n";
  return out.str();
}

}  // namespace cannbot::validator
