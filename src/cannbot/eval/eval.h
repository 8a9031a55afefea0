// RunEval: how good is a model at writing kernels, measured so that it cannot cheat.
//
// Every selected op's naive kernel (examples/<op>/naive.cpp) goes through the engine's
// generate -> validate -> repair loop with the model as provider and one fixed budget
// (samples per round, repair rounds; no early stop), so every op costs the model the same
// number of answers. Each candidate meets the whole validator: compile (with the static source
// check and the object check), the sandboxed numeric layer (poisoned outputs, guard zones,
// fresh inputs, determinism) and the perf gate against the naive kernel. The reports become
// scores (score.h): compile and correct rates, KernelBench's fast_0/1/2, the best speedup per
// op, rejections by layer and by class, with cheats named (classify.h), tokens and time.
//
// An op whose run fails (the endpoint answers HTTP errors or cannot be reached, after the
// chat client's retries) is recorded as failed with the reason, and the run goes on with the
// next op. Only a bad request fails the whole run.
//
// Ownership: borrows the engine; while RunEval runs, the engine's LLM requests go through a
// token meter RunEval owns (it routes them back to libcurl per job when it returns), so no
// other job may use the engine meanwhile. Thread-safety: one RunEval per engine at a time;
// progress callbacks run on the calling thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/engine/engine.h"
#include "cannbot/eval/eval_run.h"
#include "cannbot/ops/registry.h"

namespace cannbot::eval {

inline constexpr char kOfflineServer[] = "offline";

struct EvalOptions {
  std::string server;  // OpenAI-compatible base URL, or "offline" (the offline recipes)
  std::string model;   // the model's name on that server (ignored offline)
  // Op names or family names (`cannbot ops`: activation, binary, normalization, matmul,
  // convolution, ...), in the order to run; empty = every op that has a naive kernel.
  std::vector<std::string> ops;
  int samples = 2;  // candidates asked for per round (1..16)
  int rounds = 1;   // repair rounds after the first (0..20)
  std::optional<uint64_t> seed;        // the validator's inputs; absent = fresh per op
  std::optional<double> min_speedup;   // the perf bar; absent = the configured one
  std::string examples_dir;  // holds <op>/naive.cpp; "" = the installed examples/
};

// What a caller hears while a run goes on. Every method has an empty default.
class EvalProgress {
 public:
  virtual ~EvalProgress() = default;
  virtual void OnOpStart(const std::string& op, size_t index, size_t count) {
    (void)op, (void)index, (void)count;
  }
  virtual void OnAttempt(const std::string& op, const optimize::Attempt& attempt) {
    (void)op, (void)attempt;
  }
  virtual void OnOpDone(const OpScore& score) { (void)score; }
};

struct EvalOp {
  const ops::OpSpec* spec = nullptr;  // borrowed from the registry
  std::string naive_path;             // its naive kernel
};

// The ops `names` select, in order, each once: an op's name selects it, a family's name its
// ops in the registry's order. Empty `names` = every op with a naive kernel. Errors:
// InvalidArgument naming an unknown name (with the known ops and families) or a named op
// without <examples_dir>/<op>/naive.cpp.
Result<std::vector<EvalOp>> SelectOps(const ops::Registry& registry,
                                      const std::vector<std::string>& names,
                                      const std::string& examples_dir);

// Runs the evaluation. Errors: InvalidArgument for bad options (no server, no model with a
// URL, a budget out of range, SelectOps' errors); per-op failures are in the run instead.
Result<EvalRun> RunEval(const EvalOptions& options, engine::Engine& engine,
                        EvalProgress* progress = nullptr);

}  // namespace cannbot::eval
