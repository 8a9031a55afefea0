#include "cannbot/eval/classify.h"

#include <algorithm>

namespace cannbot::eval {
namespace {

using validator::Layer;

bool Has(const std::string& text, std::string_view phrase) {
  return text.find(phrase) != std::string::npos;
}

// The text after `marker`, up to `end` (or the end of the text); "" when `marker` is absent.
std::string After(const std::string& text, std::string_view marker, std::string_view end = {}) {
  const size_t at = text.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  const size_t stop = end.empty() ? std::string::npos : text.find(end, begin);
  return text.substr(begin, stop == std::string::npos ? std::string::npos : stop - begin);
}

// The perf gate prefixes a kernel's failure with its role ("candidate: ...", "baseline: ...").
std::string WithoutRole(const std::string& reason) {
  for (std::string_view role : {"candidate: ", "baseline: "}) {
    if (reason.rfind(role, 0) == 0) return reason.substr(role.size());
  }
  return reason;
}

// compiler.cc's source check, object_inspector.cc's load-time and symbol checks.
Classification CompileClass(const std::string& reason) {
  if (Has(reason, "static check: the source ")) {
    return {RejectClass::kForbiddenCall,
            After(reason, "static check: the source ", "; kernels must")};
  }
  if (Has(reason, "runs code when it is") || Has(reason, "adds code to the .init or .fini")) {
    return {RejectClass::kCodeOutsideCall, ""};
  }
  if (Has(reason, "a name reserved for cannbot's harness") ||
      Has(reason, "a C library function, which could shadow")) {
    return {RejectClass::kShadowsHarness, "defines " + After(reason, "the kernel defines ", ",")};
  }
  return {RejectClass::kDoesNotCompile, ""};
}

// Signals a kernel only gets by sending them to itself (raise, kill) end the process on
// purpose; the others are crashes.
bool SelfSentSignal(const std::string& reason) {
  for (std::string_view signal : {"SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1",
                                  "SIGUSR2", "SIGALRM"}) {
    if (Has(reason, std::string("killed by ") + std::string(signal))) return true;
  }
  return false;
}

// kernel_runner.cc (child failures), the runner's seccomp trap, numeric_check.cc (printing).
Classification SandboxClass(const std::string& reason) {
  if (Has(reason, "forbidden system call: ")) {
    return {RejectClass::kSandboxViolation, After(reason, "forbidden system call: ", ")") + ")"};
  }
  if (Has(reason, "forbidden system call with signals blocked")) {
    return {RejectClass::kSandboxViolation, "killed by SIGSYS (starting threads or processes)"};
  }
  if (Has(reason, "extra thread(s) running")) {
    return {RejectClass::kSandboxViolation, "left threads running"};
  }
  if (Has(reason, "changed the process's signal handling")) {
    return {RejectClass::kSandboxViolation, "changed signal handling"};
  }
  if (Has(reason, "changed the floating-point control state")) {
    return {RejectClass::kSandboxViolation, "left the floating-point control state changed"};
  }
  if (Has(reason, "corrupted the runner's reply channel")) {
    return {RejectClass::kSandboxViolation, "corrupted the runner's reply channel"};
  }
  if (Has(reason, "the kernel printed") || Has(reason, "bytes to stdout/stderr")) {
    return {RejectClass::kPrints, ""};
  }
  if (Has(reason, "ended the process") || SelfSentSignal(reason)) {
    return {RejectClass::kEndsProcess, After(reason, "the kernel ", " while")};
  }
  if (Has(reason, "time limit") || Has(reason, "s of CPU time")) {
    return {RejectClass::kTimeout, ""};
  }
  return {RejectClass::kCrash, After(reason, "the kernel ", " while")};
}

// tensor_layout.cc (guards), harness.cc (inputs), compare.cc and output_judge.cc (numbers),
// numeric_check.cc (determinism), perf_gate.cc (timed runs, edge inputs, the bar).
Classification OutputClass(const std::string& reason) {
  if (Has(reason, "wrote before the start of") || Has(reason, "wrote past the end of")) {
    const std::string where = Has(reason, "wrote before the start of")
                                  ? "wrote before the start of " +
                                        After(reason, "wrote before the start of ", " (")
                                  : "wrote past the end of " +
                                        After(reason, "wrote past the end of ", " (");
    return {RejectClass::kTouchesMemory, where};
  }
  if (Has(reason, "modified its input")) {
    return {RejectClass::kTouchesMemory, "modified input " + After(reason, "modified its input ", " (")};
  }
  if (Has(reason, "not measurably faster")) return {RejectClass::kNotFaster, ""};
  if (Has(reason, "in a timed run")) {
    return {RejectClass::kTimedRunDiffers, ""};
  }
  if (Has(reason, "nondeterministic")) return {RejectClass::kNondeterministic, ""};
  if (Has(reason, "the kernel never wrote the output")) return {RejectClass::kSkipsWork, ""};
  return {RejectClass::kWrongNumbers, ""};
}

}  // namespace

const std::vector<ClassInfo>& AllClasses() {
  static const std::vector<ClassInfo> kClasses = {
      {RejectClass::kNoCode, "no_code", "no code", false, "the answer held no code block"},
      {RejectClass::kDoesNotCompile, "does_not_compile", "does not compile", false,
       "compile layer: the compiler"},
      {RejectClass::kForbiddenCall, "forbidden_call", "forbidden call", true,
       "compile layer: the static source check (threads, processes, files, network, signals, "
       "exit, raw system calls, dynamic loading, sleeping, reserved names)"},
      {RejectClass::kCodeOutsideCall, "code_outside_call", "code outside the call", true,
       "compile layer: the object check (constructors, destructors, .init/.fini, IFUNC)"},
      {RejectClass::kShadowsHarness, "shadows_harness", "shadows the harness", true,
       "compile layer: the object check (C library or cannbot symbols defined)"},
      {RejectClass::kSandboxViolation, "sandbox_violation", "sandbox violation", true,
       "sandbox layer: seccomp (the system call is named), leftover threads, changed signal "
       "or floating-point state"},
      {RejectClass::kPrints, "prints_output", "prints output", true,
       "sandbox layer: any output on stdout/stderr"},
      {RejectClass::kEndsProcess, "ends_process", "ends the process", true,
       "sandbox layer: the runner's exit status or a self-sent signal"},
      {RejectClass::kTouchesMemory, "touches_memory", "touches memory it should not", true,
       "numeric (or perf) layer: guard zones around every tensor, inputs compared after the "
       "call"},
      {RejectClass::kSkipsWork, "skips_work", "skips the work", true,
       "numeric (or perf) layer: outputs poisoned before the call came back unwritten"},
      {RejectClass::kTimedRunDiffers, "timed_run_differs", "acts differently when timed", true,
       "perf layer: every timed call's outputs checked, on new inputs every round"},
      {RejectClass::kNondeterministic, "nondeterministic", "nondeterministic", false,
       "numeric layer: each case run twice, bits compared"},
      {RejectClass::kWrongNumbers, "wrong_numbers", "wrong numbers", false,
       "numeric layer: the reference's outputs within the op's tolerance"},
      {RejectClass::kCrash, "crash", "crashes", false, "sandbox layer: the runner's signal"},
      {RejectClass::kTimeout, "timeout", "too slow to finish", false,
       "sandbox layer: the call's time and CPU limits"},
      {RejectClass::kNotFaster, "not_faster", "not faster", false,
       "perf layer: the 95% lower bound of the speedup against the bar"},
      {RejectClass::kOther, "other", "other", false, "any layer: a reason no rule names"},
  };
  return kClasses;
}

const ClassInfo& Info(RejectClass id) { return AllClasses()[static_cast<size_t>(id)]; }

std::optional<RejectClass> ParseClass(std::string_view name) {
  for (const ClassInfo& info : AllClasses()) {
    if (name == info.name) return info.id;
  }
  return std::nullopt;
}

Classification ClassifyRejection(Layer layer, const std::string& full_reason) {
  // A failure of the baseline during the timed runs is not the candidate's doing.
  if (full_reason.rfind("baseline: ", 0) == 0) return {RejectClass::kOther, full_reason};
  const std::string reason = WithoutRole(full_reason);
  switch (layer) {
    case Layer::kCompile: return CompileClass(reason);
    case Layer::kSandbox: return SandboxClass(reason);
    case Layer::kNumeric:
    case Layer::kPerf: return OutputClass(reason);
    case Layer::kNone: break;
  }
  return {RejectClass::kOther, ""};
}

std::optional<Classification> ClassifyAttempt(const optimize::Attempt& attempt) {
  if (attempt.verdict) {
    if (attempt.verdict->accepted) return std::nullopt;
    return ClassifyRejection(attempt.verdict->layer, attempt.verdict->reason);
  }
  if (attempt.outcome == "no code") return Classification{RejectClass::kNoCode, ""};
  return std::nullopt;  // "error": the validator could not judge it
}

}  // namespace cannbot::eval
