// Skills: expert knowledge as files, selected by diagnosis, op and target.
//
// A skill is a folder holding SKILL.md (YAML front matter with `name` and `description`, then
// markdown; the open Agent Skills layout) and optional references/, templates/, scripts/ and
// recipes/. A skills directory may be a flat folder of skills or a published pack root
// (skills/*/SKILL.md, plugins/*/skills/*/SKILL.md, any depth): Load finds every SKILL.md and
// reports what it skipped and why (pack_loader.cc). cannbot's own metadata lives under a
// `cannbot:` key in the front matter (bottlenecks, ops, targets, priority, keywords); a skill
// without it is matched by its name, description and body in English or Chinese through a
// bilingual glossary (selection.cc, glossary.h). See skills/README.md.
//
// Ownership: a SkillLibrary owns its skills; selections point into it and must not outlive
// it. Thread-safety: immutable after Load; safe to share.
#pragma once

#include <cstdint>
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
  std::vector<std::string> families;  // op families ("activation", "matmul", ...): with ops,
                                      // a skill serves an op either list admits
  std::vector<std::string> targets;  // target names (target/registry.h); empty = any
  std::vector<std::string> keywords;
  int priority = 50;  // 0..100

  // Whether the declared `ops`/`families` admit the op (by its name across dtypes and its
  // spec's family); neither declared: any op.
  bool Serves(const std::string& op, const std::string& family) const;
};

struct SkillFile {
  std::string name;  // "references/exp-polynomial.md"
  std::string text;
};

// A file beside SKILL.md (references/, templates/, scripts/, assets/), listed but not read
// unless the body names it: packs ship long material the prompt must not take wholesale.
struct SkillAsset {
  std::string path;  // relative to the skill folder: "templates/kernel.cpp"
  uint64_t bytes = 0;
  bool named_in_body = false;  // the body mentions its file name
  bool loaded = false;         // its text is in Skill::references
};

struct Skill {
  std::string name;
  std::string description;
  SkillMetadata cannbot;
  std::string body;  // the markdown after the front matter
  // Text the prompt may add within its budget: the files the body names (references/ and
  // templates/; see pack_loader.cc for the size cap). Unnamed files are assets only.
  std::vector<SkillFile> references;
  std::vector<SkillAsset> assets;  // every file beside SKILL.md, loaded or not
  std::vector<Recipe> recipes;     // recipes/*.cpp
  std::string directory;
};

struct SkillMatch {
  const Skill* skill = nullptr;
  // Metadata match: severity rank * 1000 + priority. Text match: below 1000 (ranked after
  // every metadata match): severity rank * 100 + concept, family and word weights.
  double score = 0;
  std::string
      why;  // "addresses memory_bound (critical)" / "describes 向量化 for low_vectorization"
};

// What Explain says about one skill, chosen or not.
struct SkillVerdict {
  SkillMatch match;
  bool selected = false;
  std::string method;  // "metadata" or "text"
};

// What Load found: per directory, the skills loaded; every SKILL.md skipped with its reason;
// every name seen twice with both paths.
struct LoadReport {
  struct Directory {
    std::string path;
    bool exists = false;
    int found = 0;   // SKILL.md files found below it
    int loaded = 0;  // skills kept from it
  };
  struct Skipped {
    std::string path;  // the SKILL.md
    std::string reason;
  };
  struct Duplicate {
    std::string name;
    std::string kept;                          // folder of the skill kept (the first one)
    std::string dropped;                       // folder of the one ignored
    bool override_across_directories = false;  // an earlier directory overrides a later one
  };
  std::vector<Directory> directories;
  std::vector<Skipped> skipped;
  std::vector<Duplicate> duplicates;
  std::vector<std::string> limits;  // walk limits that cut the search short

  // People-readable lines, one per fact ("loaded 7 skills from DIR", "skipped PATH: why").
  std::vector<std::string> Render() const;
};

// Parses one SKILL.md; `path` is for messages only.
Result<Skill> ParseSkill(const std::string& text, const std::string& path);

class SkillLibrary {
 public:
  // Loads every SKILL.md found below each directory (at any depth, hidden folders and
  // node_modules skipped, symlink loops safe; a folder holding SKILL.md is one skill and is not
  // searched further), directories in order. A skill name seen twice keeps the first, so
  // callers list a team's directories before the built-in one to override it. Warnings:
  // a missing directory, each malformed or unreadable SKILL.md (path and reason), each name
  // seen twice within one directory (both paths), each walk limit hit, each bad recipe. An
  // override across directories is in report() but is no warning.
  static SkillLibrary Load(const std::vector<std::string>& directories,
                           std::vector<std::string>* warnings);

  const std::vector<Skill>& skills() const { return skills_; }
  const LoadReport& report() const { return report_; }
  const Skill* Find(const std::string& name) const;

  // The skills that apply, best first: by the severity of the finding they address (text
  // matches after metadata matches), then priority, then name.
  // `op` is the op's name across dtypes (OpSpec::BaseName), `family` its spec's family.
  std::vector<SkillMatch> Select(const diagnosis::Diagnosis& diagnosis, const std::string& op,
                                 const std::string& target, const std::string& family = "") const;

  // Every skill, in library order, with its score and why it was or was not chosen.
  std::vector<SkillVerdict> Explain(const diagnosis::Diagnosis& diagnosis, const std::string& op,
                                    const std::string& target,
                                    const std::string& family = "") const;

 private:
  std::vector<Skill> skills_;
  LoadReport report_;
};

// A table of Explain's verdicts, best score first: score, chosen or not, skill, reason.
std::string RenderExplanation(const std::vector<SkillVerdict>& verdicts);

}  // namespace cannbot::skills
