// OfflineProvider: candidates from the recipes that skills carry, with no LLM anywhere.
//
// Round 0 proposes the default variant of every recipe for the op, recipes of the skills the
// diagnosis selected first (so the report says why each was tried); an op without recipes of
// its own gets its family's. Later rounds search, and do not give up when a round accepts
// nothing: every variant the validator timed (accepted, or correct but not fast enough) is a
// starting point, best speedup first, and each round proposes the untried single-parameter
// neighbours of the best one not yet expanded. A variant the perf gate's edge check flagged
// (subnormal numbers, or much slower on the op's edge values) is proposed again with its trap
// removed: flush-to-zero set around the call. When every timed variant is expanded, the
// family recipes not tried yet come next. The search ends when the provider has nothing new,
// the budget of variants is spent, or the loop stops it (a kernel within reach of the
// roofline, the time budget).
//
// The winner is remembered in the Store per (target, op, perf shape, machine model, compiler):
// a repeat proposes it straight away (and searches afresh if it no longer validates).
//
// Ownership: borrows the SkillLibrary and Store (the Store may be null: no memory).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cannbot/optimize/provider.h"
#include "cannbot/store/store.h"

namespace cannbot::optimize {

struct OfflineConfig {
  int max_variants = 24;    // variants proposed in all, across rounds (--budget)
  bool use_memory = true;   // propose a remembered winner when there is one
};

// `code` with the op's entry point wrapped so that it runs with flush-to-zero and
// denormals-are-zero set, restoring the caller's MXCSR on return (cpu target).
std::string WithFlushToZero(const ops::OpSpec& op, const std::string& code);

class OfflineProvider : public Provider {
 public:
  // `tuning_key` identifies the (op, shape, machine model, compiler) results are valid for.
  OfflineProvider(const skills::SkillLibrary* library, store::Store* store,
                  std::string tuning_key, OfflineConfig config);

  std::string Describe() const override;
  Result<std::vector<Proposal>> Propose(const ProposalRequest& request) override;
  // Remembers the winner of this search.
  void Finish(const std::string& best_code, double speedup) override;

 private:
  struct Variant {
    const skills::Recipe* recipe = nullptr;
    skills::ParamValues values;
    bool flush_to_zero = false;  // wrapped by WithFlushToZero

    std::string Key() const;
  };
  // A proposal for `variant` unless it was proposed before or the budget is spent.
  bool Add(const Variant& variant, const std::string& why, std::vector<Proposal>* out);
  std::vector<Proposal> FirstRound(const ProposalRequest& request);
  std::vector<Proposal> Search(const ProposalRequest& request);
  // Recipes that apply to the op on the request's target; family recipes only when
  // `family` (round 0 uses them only for ops without recipes of their own).
  std::vector<const skills::Recipe*> Recipes(const ProposalRequest& request, bool family) const;

  const skills::SkillLibrary* library_;
  store::Store* store_;
  std::string tuning_key_;
  OfflineConfig config_;
  int proposed_ = 0;
  bool from_memory_ = false;
  std::string remembered_code_;
  std::map<std::string, Variant> by_code_;  // what each proposed source was
  std::set<std::string> proposed_keys_;     // Variant::Key of everything proposed
  std::set<std::string> expanded_;          // variants whose neighbours were proposed
  const ops::OpSpec* op_ = nullptr;  // the request's op
  std::string kernel_;  // the user's kernel, which family recipes are put in front of
  bool cpu_target_ = true;
};

}  // namespace cannbot::optimize
