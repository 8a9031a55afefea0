// OfflineProvider: candidates from the recipes that skills carry, with no LLM anywhere.
//
// Round 0 proposes the default variant of every recipe for the op, recipes of the skills the
// diagnosis selected first (so the report says why each was tried). Later rounds search the
// parameters of the best accepted recipe by coordinate descent: round r tries every other
// value of the r-th parameter, holding the rest at the best values so far. The loop validates
// every variant through all three layers and keeps the fastest. The winner is remembered in
// the Store per (op, perf shape, machine, compiler): a repeat proposes it straight away.
//
// Ownership: borrows the SkillLibrary and Store (the Store may be null: no memory).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cannbot/optimize/provider.h"
#include "cannbot/store/store.h"

namespace cannbot::optimize {

struct OfflineConfig {
  int max_variants = 24;    // variants proposed in all, across rounds (--budget)
  bool use_memory = true;   // propose a remembered winner when there is one
};

class OfflineProvider : public Provider {
 public:
  // `tuning_key` identifies the (op, shape, machine, compiler) the results are valid for.
  OfflineProvider(const skills::SkillLibrary* library, store::Store* store,
                  std::string tuning_key, OfflineConfig config);

  std::string Describe() const override;
  Result<std::vector<Proposal>> Propose(const ProposalRequest& request) override;
  // Remembers the winner of this search.
  void Finish(const std::string& best_code, double speedup) override;

 private:
  struct Variant {
    const skills::Recipe* recipe;
    skills::ParamValues values;
  };
  Proposal Make(const Variant& variant, const std::string& why);
  std::vector<Proposal> FirstRound(const ProposalRequest& request);
  std::vector<Proposal> Descend(const ProposalRequest& request);

  const skills::SkillLibrary* library_;
  store::Store* store_;
  std::string tuning_key_;
  OfflineConfig config_;
  int proposed_ = 0;
  bool from_memory_ = false;
  std::map<std::string, Variant> by_code_;  // what each proposed source was
  std::map<std::string, std::string> why_;  // recipe name -> why it was tried
  std::string kernel_;  // the user's kernel, which family recipes are put in front of
};

}  // namespace cannbot::optimize
