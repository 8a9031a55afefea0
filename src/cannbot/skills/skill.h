// Skills: expert knowledge as files, selected by diagnosis, op and target.
//
// A skill is a folder holding SKILL.md (YAML front matter with `name` and `description`, then
// markdown; the open Agent Skills layout) and optional references/*.md and recipes/. cannbot's
// own metadata lives under a `cannbot:` key in the front matter (bottlenecks, ops, targets,
// priority, keywords); a skill without it (e.g. from another team's skills repository) is
// matched by the words of its description. See skills/README.md.
//
// Ownership: a SkillLibrary owns its skills; selections point into it and must not outlive
// it. Thread-safety: immutable after Load; safe to share.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/skills/recipe.h"
#include "cannbot/util/status.h"

namespace cannbot::skills {

struct SkillMetadata {
  bool present = false;  // the front matter has a `cannbot:` section
  std::vector<std::string> bottlenecks;
  std::vector<std::string> ops;      // op names or "*"
  std::vector<std::string> targets;  // target names (target/registry.h); empty = any
  std::vector<std::string> keywords;
  int priority = 50;                 // 0..100
};

struct SkillFile {
  std::string name;  // "references/exp-polynomial.md"
  std::string text;
};

struct Skill {
  std::string name;
  std::string description;
  SkillMetadata cannbot;
  std::string body;  // the markdown after the front matter
  std::vector<SkillFile> references;
  std::vector<Recipe> recipes;  // recipes/*.cpp
  std::string directory;
};

struct SkillMatch {
  const Skill* skill = nullptr;
  double score = 0;  // severity rank * 1000 + priority
  std::string why;  // "matches memory_bound (critical)" / "description mentions vectorisation"
};

// Parses one SKILL.md; `path` is for messages only.
Result<Skill> ParseSkill(const std::string& text, const std::string& path);

class SkillLibrary {
 public:
  // Loads every <dir>/<skill>/SKILL.md under each directory in order; a skill name seen twice
  // keeps the first, so callers list a team's directories before the built-in one to
  // override it. Malformed skills are skipped with a warning naming the file; a missing
  // directory is a warning too.
  static SkillLibrary Load(const std::vector<std::string>& directories,
                           std::vector<std::string>* warnings);

  const std::vector<Skill>& skills() const { return skills_; }
  const Skill* Find(const std::string& name) const;

  // The skills that apply, best first: by the severity of the finding they address (keyword
  // matches last), then priority, then name.
  std::vector<SkillMatch> Select(const diagnosis::Diagnosis& diagnosis, const std::string& op,
                                 const std::string& target) const;

 private:
  std::vector<Skill> skills_;
};

}  // namespace cannbot::skills
