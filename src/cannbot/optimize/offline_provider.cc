#include "cannbot/optimize/offline_provider.h"

#include <algorithm>
#include <set>

#include "cannbot/target/registry.h"

namespace cannbot::optimize {

namespace {

// A recipe for the op by name, or a family recipe for the op's family whose dtypes cover
// every tensor of the op.
bool Applies(const skills::Recipe& recipe, const ops::OpSpec& op) {
  if (!recipe.op.empty()) return recipe.op == op.name;
  auto has = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  if (!has(recipe.families, op.family)) return false;
  if (recipe.dtypes.empty() || has(recipe.dtypes, "any")) return true;
  for (const ops::Param& p : op.params) {
    if (p.IsTensor() && !has(recipe.dtypes, ops::DTypeName(p.dtype))) return false;
  }
  return true;
}

}  // namespace

OfflineProvider::OfflineProvider(const skills::SkillLibrary* library, store::Store* store,
                                 std::string tuning_key, OfflineConfig config)
    : library_(library), store_(store), tuning_key_(std::move(tuning_key)), config_(config) {}

std::string OfflineProvider::Describe() const {
  return "offline recipes (no LLM)";
}

Proposal OfflineProvider::Make(const Variant& variant, const std::string& why) {
  Proposal p;
  p.origin = "recipe " + variant.recipe->name + " (" +
             skills::DescribeValues(*variant.recipe, variant.values) + ")";
  p.code = skills::Instantiate(*variant.recipe, variant.values, kernel_);
  p.explanation = variant.recipe->summary + ". Tried because " + why + ".";
  by_code_[p.code] = variant;
  ++proposed_;
  return p;
}

std::vector<Proposal> OfflineProvider::FirstRound(const ProposalRequest& request) {
  std::vector<Proposal> proposals;
  if (config_.use_memory && store_ != nullptr) {
    auto remembered = store_->FindTuned(tuning_key_);
    if (remembered.ok() && remembered->has_value()) {
      const store::TunedKernel& tuned = **remembered;
      Proposal p;
      p.origin = "remembered tuning: " + tuned.recipe + " (" + tuned.params + ")";
      p.code = tuned.code;
      p.explanation = "The winner of an earlier search on this machine for this op and shape.";
      from_memory_ = true;
      proposals.push_back(p);
      return proposals;
    }
  }
  // Recipes of the skills the diagnosis selected come first, then any other recipe for the op.
  // Family recipes only stand in when no recipe was written for the op itself.
  std::set<std::string> seen;
  kernel_ = request.source;
  const std::string_view target = target::OrDefault(request.target).name();
  bool named = false;
  for (const skills::Skill& skill : library_->skills()) {
    for (const skills::Recipe& recipe : skill.recipes) named |= recipe.op == request.op->name;
  }
  auto add = [&](const skills::Skill& skill, const std::string& why) {
    for (const skills::Recipe& recipe : skill.recipes) {
      const std::string_view written_for =
          recipe.target.empty() ? target::Default().name() : std::string_view(recipe.target);
      if (!Applies(recipe, *request.op) || (named && recipe.op.empty()) ||
          written_for != target || !seen.insert(recipe.name).second) {
        continue;
      }
      if (proposed_ >= config_.max_variants) return;
      why_[recipe.name] = why;
      proposals.push_back(Make({&recipe, skills::Defaults(recipe)}, why));
    }
  };
  for (const skills::SkillMatch& match : request.skills) {
    add(*match.skill, "skill " + match.skill->name + " " + match.why);
  }
  for (const skills::Skill& skill : library_->skills()) {
    add(skill, "it is a recipe for " + request.op->name + " (or its family, " +
                   request.op->family + ") in skill " + skill.name +
                   " (the diagnosis did not point at it)");
  }
  return proposals;
}

std::vector<Proposal> OfflineProvider::Descend(const ProposalRequest& request) {
  std::vector<Proposal> proposals;
  if (from_memory_) return proposals;  // a remembered winner needs no search
  auto best = by_code_.find(request.best_code);
  if (best == by_code_.end()) return proposals;  // nothing accepted: nothing to refine
  const Variant& start = best->second;
  // Round r varies the r-th parameter of the best recipe.
  const size_t index = static_cast<size_t>(request.round - 1);
  if (index >= start.recipe->params.size()) return proposals;
  const skills::RecipeParam& param = start.recipe->params[index];
  for (const std::string& value : param.values) {
    if (value == start.values.at(param.name) || proposed_ >= config_.max_variants) continue;
    Variant next = start;
    next.values[param.name] = value;
    proposals.push_back(Make(next, "tuning " + param.name + " of the best recipe so far"));
  }
  if (proposals.empty() && index + 1 < start.recipe->params.size()) {
    ProposalRequest next = request;  // a parameter with one value: move on to the next
    ++next.round;
    return Descend(next);
  }
  return proposals;
}

Result<std::vector<Proposal>> OfflineProvider::Propose(const ProposalRequest& request) {
  if (request.round == 0) {
    std::vector<Proposal> first = FirstRound(request);
    if (first.empty()) {
      return Status::NotFound("no skill carries a recipe for op '" + request.op->name +
                              "' (family " + request.op->family + ") on the " +
                              std::string(target::OrDefault(request.target).name()) +
                              " target: give an LLM endpoint (--llm) or a skill with one");
    }
    return first;
  }
  return Descend(request);
}

void OfflineProvider::Finish(const std::string& code, double speedup) {
  if (store_ == nullptr || from_memory_ || code.empty()) return;
  auto it = by_code_.find(code);
  if (it == by_code_.end()) return;
  (void)store_->PutTuned(tuning_key_, {it->second.recipe->name,
                                       skills::DescribeValues(*it->second.recipe, it->second.values),
                                       code, speedup});
}

}  // namespace cannbot::optimize
