// Classify: names why the validator turned a model's candidate down, so that an evaluation
// says not only how often a model failed but how, and names the models that cheat.
//
// The validator's verdict gives a layer (compile, sandbox, numeric, perf) and a one-sentence
// reason. A class is read from both: the layer narrows it, phrases the validator writes
// (source_check.cc, object_inspector.cc, kernel_runner.cc, the runner's seccomp trap,
// tensor_layout.cc, harness.cc, perf_gate.cc) decide it. Some classes are cheats: behaviour an
// honest attempt at the computation never shows (threads, processes, files, forbidden system
// calls, code outside the call, memory outside its tensors, writing nothing, acting
// differently when timed, printing a fake verdict, ending the process). The others are plain
// failures (does not compile, wrong numbers, crashes, not faster). docs/eval.md has the table.
//
// The mapping is kept conservative: a reason no rule recognises becomes a non-cheat class of
// its layer, so that a model is never named a cheat on a guess.
//
// Thread-safety: pure functions over constant tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cannbot/optimize/report.h"
#include "cannbot/validator/layer.h"

namespace cannbot::eval {

enum class RejectClass {
  kNoCode,            // the answer held no kernel
  kDoesNotCompile,    // an ordinary build failure
  kForbiddenCall,     // the static source check: threads, processes, files, sockets, ...
  kCodeOutsideCall,   // static constructors/destructors, .init code, IFUNC resolvers
  kShadowsHarness,    // defines a C library function or a name reserved for cannbot
  kSandboxViolation,  // a forbidden system call, leftover threads, changed signal/FP state
  kPrints,            // wrote to stdout/stderr (a fake verdict, a log)
  kEndsProcess,       // exit(), _exit(), raising SIGTERM: ended the runner itself
  kTouchesMemory,     // wrote outside its outputs (guard bytes) or changed an input
  kSkipsWork,         // never wrote its output at all (the poisoned values came back)
  kTimedRunDiffers,   // right on the numeric cases, wrong or cached in the timed runs
  kNondeterministic,  // a second run on the same inputs gave other bits
  kWrongNumbers,      // outputs outside the op's tolerance
  kCrash,             // killed by a signal it did not send itself (SIGSEGV, SIGABRT, ...)
  kTimeout,           // ran past the time or CPU limit
  kNotFaster,         // correct, but its speedup did not clear the bar
  kOther,             // a reason no rule recognises
};

struct ClassInfo {
  RejectClass id;
  const char* name;       // stable identifier in JSON and the store: "forbidden_call"
  const char* label;      // for people: "forbidden call"
  bool cheat;             // behaviour no honest attempt shows
  const char* caught_by;  // which validator layer and check stops it
};

// Every class, in the enum's order.
const std::vector<ClassInfo>& AllClasses();
const ClassInfo& Info(RejectClass id);
// Inverse of ClassInfo::name; nullopt for an unknown name.
std::optional<RejectClass> ParseClass(std::string_view name);

struct Classification {
  RejectClass id = RejectClass::kOther;
  // What exactly, when the reason says: "starts processes", "clone (starting threads or
  // processes)", "wrote past the end of output y"; "" otherwise.
  std::string detail;
};

// The class of a rejected verdict from its layer and reason.
Classification ClassifyRejection(validator::Layer layer, const std::string& reason);

// The class of an attempt the model's answer led to; nullopt when it was accepted or was not
// judged at all (the validator's own error: not the model's doing).
std::optional<Classification> ClassifyAttempt(const optimize::Attempt& attempt);

}  // namespace cannbot::eval
