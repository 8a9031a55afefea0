#include "cannbot/optimize/offline_provider.h"

#include <algorithm>

#include "cannbot/target/registry.h"

namespace cannbot::optimize {

namespace {

// A recipe for the op by name, or a family recipe for the op's family whose dtypes cover
// every tensor of the op.
bool Applies(const skills::Recipe& recipe, const ops::OpSpec& op) {
  if (!recipe.IsFamilyRecipe()) return recipe.NamesOp(op.name);
  auto has = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  if (!has(recipe.families, op.family)) return false;
  // A generated recipe needs what it is written from.
  if (recipe.generated == "elementwise" && op.elementwise.empty()) return false;
  if (recipe.generated == "reduce" && op.reduce.empty()) return false;
  if (recipe.dtypes.empty() || has(recipe.dtypes, "any")) return true;
  for (const ops::Param& p : op.params) {
    if (p.IsTensor() && !has(recipe.dtypes, ops::DTypeName(p.dtype))) return false;
  }
  return true;
}

// How much of the op a recipe knows, most first: written for the op by name, written from its
// spec (its arithmetic), or only its family (how a kernel is compiled). The first round tries
// them in that order, so a short time budget is spent where a win is likeliest.
int Specificity(const skills::Recipe& recipe) {
  if (!recipe.IsFamilyRecipe()) return 0;
  if (!recipe.generated.empty()) return 1;
  return 2;
}

}  // namespace

std::string WithFlushToZero(const ops::OpSpec& op, const std::string& code) {
  const std::string inner = op.name + "_before_flush_to_zero";  // not a reserved cannbot_ name
  std::string args;
  for (const ops::Param& p : op.params) args += (args.empty() ? "" : ", ") + p.name;
  // The kernel's own entry point is renamed by the preprocessor; the op's symbol becomes a
  // wrapper that sets FTZ and DAZ (MXCSR bits 15 and 6) and restores the caller's state.
  return "#define " + op.name + " " + inner + "\n" + code + "\n#undef " + op.name +
         "\n#include <xmmintrin.h>\n"
         "// cannbot: the kernel above runs with flush-to-zero and denormals-are-zero, so no\n"
         "// subnormal number costs a microcode assist; the caller's state is restored.\n"
         "extern \"C\" " + op.CSignature() + " {\n"
         "  const unsigned int saved = _mm_getcsr();\n"
         "  _mm_setcsr(saved | 0x8040u);\n"
         "  " + inner + "(" + args + ");\n"
         "  _mm_setcsr(saved);\n"
         "}\n";
}

std::string OfflineProvider::Variant::Key() const {
  std::string key = recipe->name;
  for (const auto& [name, value] : values) key += " " + name + "=" + value;
  return key + (flush_to_zero ? " +ftz" : "");
}

OfflineProvider::OfflineProvider(const skills::SkillLibrary* library, store::Store* store,
                                 std::string tuning_key, OfflineConfig config)
    : library_(library), store_(store), tuning_key_(std::move(tuning_key)), config_(config) {}

std::string OfflineProvider::Describe() const {
  return "offline recipes (no LLM)";
}

bool OfflineProvider::Add(const Variant& variant, const std::string& why,
                          std::vector<Proposal>* out) {
  if (proposed_ >= config_.max_variants || !proposed_keys_.insert(variant.Key()).second) {
    return false;
  }
  Proposal p;
  p.origin = "recipe " + variant.recipe->name + " (" +
             skills::DescribeValues(*variant.recipe, variant.values) +
             (variant.flush_to_zero ? ", flush-to-zero" : "") + ")";
  p.code = skills::Instantiate(*variant.recipe, variant.values, kernel_, op_);
  if (variant.flush_to_zero) p.code = WithFlushToZero(*op_, p.code);
  p.explanation = variant.recipe->summary + ". Tried because " + why + ".";
  by_code_[p.code] = variant;
  ++proposed_;
  out->push_back(std::move(p));
  return true;
}

std::vector<const skills::Recipe*> OfflineProvider::Recipes(const ProposalRequest& request,
                                                            bool family) const {
  const std::string_view target = target::OrDefault(request.target).name();
  std::vector<const skills::Recipe*> out;
  for (const skills::Skill& skill : library_->skills()) {
    for (const skills::Recipe& recipe : skill.recipes) {
      const std::string_view written_for =
          recipe.target.empty() ? target::Default().name() : std::string_view(recipe.target);
      if (written_for != target || !Applies(recipe, *request.op)) continue;
      if (recipe.IsFamilyRecipe() && !family) continue;
      out.push_back(&recipe);
    }
  }
  return out;
}

std::vector<Proposal> OfflineProvider::FirstRound(const ProposalRequest& request) {
  std::vector<Proposal> proposals;
  if (config_.use_memory && store_ != nullptr && !from_memory_) {
    auto remembered = store_->FindTuned(tuning_key_);
    if (remembered.ok() && remembered->has_value()) {
      const store::TunedKernel& tuned = **remembered;
      Proposal p;
      p.origin = "remembered tuning: " + tuned.recipe + " (" + tuned.params + ")";
      p.code = tuned.code;
      p.explanation = "The winner of an earlier search on this machine model for this op and "
                      "shape.";
      from_memory_ = true;
      remembered_code_ = tuned.code;
      proposals.push_back(p);
      return proposals;
    }
  }
  // Recipes of the skills the diagnosis selected come first, then any other recipe for the op.
  // Family recipes only stand in when no recipe was written for the op itself.
  bool named = false;
  for (const skills::Recipe* recipe : Recipes(request, true)) named |= !recipe->IsFamilyRecipe();
  const std::vector<const skills::Recipe*> first = Recipes(request, !named);
  std::vector<std::pair<const skills::Recipe*, std::string>> ordered;  // recipe, why
  auto add_from = [&](const skills::Skill& skill, const std::string& why) {
    for (const skills::Recipe& recipe : skill.recipes) {
      if (std::find(first.begin(), first.end(), &recipe) == first.end()) continue;
      ordered.emplace_back(&recipe, why);
    }
  };
  for (const skills::SkillMatch& match : request.skills) {
    add_from(*match.skill, "skill " + match.skill->name + " " + match.why);
  }
  for (const skills::Skill& skill : library_->skills()) {
    add_from(skill, "it is a recipe for " + request.op->name + " (or its family, " +
                        request.op->family + ") in skill " + skill.name +
                        " (the diagnosis did not point at it)");
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return Specificity(*a.first) < Specificity(*b.first);
  });
  for (const auto& [recipe, why] : ordered) {
    Add({recipe, skills::Defaults(*recipe), false}, why, &proposals);
  }
  return proposals;
}

std::vector<Proposal> OfflineProvider::Search(const ProposalRequest& request) {
  std::vector<Proposal> proposals;
  // Every timed variant of ours, fastest first: accepted ones and those correct but not fast
  // enough alike (a rejected variant's neighbour may clear the bar).
  std::vector<std::pair<double, const Variant*>> timed;
  for (const TriedCandidate& t : request.tried) {
    auto it = by_code_.find(t.code);
    if (it == by_code_.end() || t.speedup <= 0) continue;
    timed.push_back({t.speedup, &it->second});
    // A variant the edge check flagged comes back with its trap removed.
    if (t.edge_trap && cpu_target_ && !it->second.flush_to_zero) {
      Variant fixed = it->second;
      fixed.flush_to_zero = true;
      Add(fixed, "the edge check flagged " + it->second.recipe->name +
                     " (subnormal numbers or a slow path on edge values): the same variant "
                     "with flush-to-zero set",
          &proposals);
    }
  }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [speedup, start] : timed) {
    if (!expanded_.insert(start->Key()).second) continue;
    const size_t before = proposals.size();
    for (const skills::RecipeParam& param : start->recipe->params) {
      for (const std::string& value : param.values) {
        if (value == start->values.at(param.name)) continue;
        Variant next = *start;
        next.values[param.name] = value;
        Add(next, "a neighbour (" + param.name + "=" + value + ") of " +
                      skills::DescribeValues(*start->recipe, start->values) + ", timed at " +
                      std::to_string(speedup).substr(0, 4) + "x",
            &proposals);
      }
    }
    if (proposals.size() > before) return proposals;  // one variant's neighbourhood a round
  }
  if (!proposals.empty()) return proposals;
  // Nothing left to refine: the family's recipes this op has not tried yet.
  for (const skills::Recipe* recipe : Recipes(request, true)) {
    Add({recipe, skills::Defaults(*recipe), false},
        "the recipes for " + request.op->name + " are explored; " + recipe->name +
            " is written for its family (" + request.op->family + ")",
        &proposals);
  }
  return proposals;
}

Result<std::vector<Proposal>> OfflineProvider::Propose(const ProposalRequest& request) {
  op_ = request.op;
  kernel_ = request.source;
  cpu_target_ = &target::OrDefault(request.target) == &target::Default();
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
  if (from_memory_) {
    // A remembered winner needs no search, unless it no longer validates here.
    for (const TriedCandidate& t : request.tried) {
      if (t.code == remembered_code_ && t.accepted) return std::vector<Proposal>{};
    }
    remembered_code_.clear();
    return FirstRound(request);
  }
  return Search(request);
}

void OfflineProvider::Finish(const std::string& code, double speedup) {
  if (store_ == nullptr || code.empty() || code == remembered_code_) return;
  auto it = by_code_.find(code);
  if (it == by_code_.end()) return;
  const Variant& v = it->second;
  (void)store_->PutTuned(tuning_key_,
                         {v.recipe->name,
                          skills::DescribeValues(*v.recipe, v.values) +
                              (v.flush_to_zero ? " flush-to-zero" : ""),
                          code, speedup});
}

}  // namespace cannbot::optimize
