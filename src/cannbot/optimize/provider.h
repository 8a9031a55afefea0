// Provider: where candidate kernels come from. Two implementations sit behind this interface:
// an OpenAI-compatible LLM (llm_provider.h) and the offline skill recipes. Whatever a provider
// returns is untrusted: the loop validates every candidate.
//
// Thread-safety: a provider is used by one optimisation loop at a time.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/skills/skill.h"
#include "cannbot/target/target.h"
#include "cannbot/util/status.h"

namespace cannbot::optimize {

// A candidate that failed, and what the validator said about it (for repair prompts).
struct Failure {
  std::string code;
  std::string feedback;
};

// How a candidate proposed earlier in this run fared (searching providers learn from it).
struct TriedCandidate {
  std::string code;
  bool accepted = false;
  double speedup = 0;  // the perf gate's median speedup; 0 when it was not timed
  double roofline_fraction = 0;
  bool edge_trap = false;  // the perf gate's edge check reported it (edge_check.h)
};

struct ProposalRequest {
  const ops::OpSpec* op = nullptr;
  std::string source;  // the kernel to beat (the user's)
  const diagnosis::Diagnosis* diagnosis = nullptr;
  std::vector<skills::SkillMatch> skills;
  std::string hardware;  // facts about the target machine, for prompts
  const target::Target* target = nullptr;  // null = target::Default()
  int round = 0;    // 0: first proposals; later rounds repair or improve
  int samples = 1;  // how many candidates are wanted
  std::vector<Failure> failures;  // from the previous round, most promising first
  std::string best_code;          // the best accepted kernel so far, if any
  std::string best_feedback;      // how it did, if any
  std::vector<TriedCandidate> tried;  // every candidate validated so far, in order
  // Set by another thread (a cancel, a shutdown): a provider waiting on a model gives up.
  const std::atomic<bool>* stop = nullptr;
};

struct Proposal {
  std::string origin;       // "llm round 1 sample 2", "recipe ... (tile=256)"
  std::string prompt;       // what was sent, if anything
  std::string response;     // the raw answer, if any
  std::string code;         // empty when nothing usable came back
  std::string explanation;  // what the provider says it changed
  std::string problem;      // why there is no code
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string Describe() const = 0;
  // Candidates for one round. An error means the provider cannot work at all (server down).
  // An empty list means it has nothing more to offer.
  virtual Result<std::vector<Proposal>> Propose(const ProposalRequest& request) = 0;
  // The loop is over; `best_code` is the accepted winner ("" if none) and `speedup` its
  // speedup. Providers that learn (the offline search) remember it here.
  virtual void Finish(const std::string& best_code, double speedup) {
    (void)best_code;
    (void)speedup;
  }
};

}  // namespace cannbot::optimize
