#include "cannbot/validator/verdict.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <sstream>

#include "cannbot/ascendc/cost_model.h"

namespace cannbot::validator {
namespace {

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

std::string Verdict::RenderText() const {
  std::ostringstream out;
  out << "cannbot validate: op " << op << " (target " << target << "), seed " << seed << "\n";
  out << "  candidate  " << candidate_name << "\n";
  out << "  baseline   " << baseline_name << "\n";
  out << "  reference  " << reference << "\n\n";
  out << Format("  %-9s %-6s %s\n", "layer", "result", "detail");
  const bool compile_failed = !compile.ok;
  out << LayerLine("compile", compile_failed ? "FAIL" : "pass",
                   compile_failed ? compile.reason
                                  : Format("%.2f s%s", compile.seconds,
                                           compile.cached ? " (cached)" : ""));
  const bool sandbox_failed = layer == Layer::kSandbox;
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
    out << Format("  speedup    %.2fx (%s within the model's calibrated error), bar %.2fx\n",
                  perf->speedup,
                  ascendc::DescribeRange({perf->speedup_ci.low, perf->speedup_ci.high}).c_str(),
                  perf->min_speedup);
    out << "  " << perf->estimate_detail << "\n";
  } else if (perf && perf->rounds > 0) {
    out << "\n  perf shape " << perf->shape << ", " << perf->rounds << " rounds";
    if (machine) {
      out << Format("; roofline: read %.1f, copy %.1f, triad %.1f GB/s, %.0f GFLOP/s (%s)",
                    machine->read_gbps, machine->copy_gbps, machine->stream_gbps,
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
    out << perf->edges.RenderText();
  }
  if (numeric) {
    for (const std::string& warning : numeric->sandbox_warnings) {
      out << "\n  warning: INSECURE SANDBOX (allowed by insecure_sandbox): " << warning;
    }
    if (!numeric->sandbox_warnings.empty()) out << "\n";
  }
  out << "\nVERDICT: " << (accepted ? "accepted" : "rejected");
  if (!accepted) out << " at the " << LayerName(layer) << " layer";
  out << ": " << reason << "\n";
  const std::string& printed = perf ? perf->child_output
                                     : (numeric ? numeric->child_output : std::string());
  if (!printed.empty()) out << "\nThe kernel printed (first bytes):\n" << printed << "\n";
  return out.str();
}

}  // namespace cannbot::validator
