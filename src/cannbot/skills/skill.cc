#include "cannbot/skills/skill.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>

#include "cannbot/util/fs.h"

namespace cannbot::skills {
namespace {

namespace fs = std::filesystem;

// yaml-cpp reports malformed documents by exception; ParseSkill catches them at this edge.
std::vector<std::string> StringList(const YAML::Node& node, const std::string& key) {
  std::vector<std::string> out;
  if (!node) return out;
  if (node.IsScalar()) return {node.as<std::string>()};
  if (!node.IsSequence()) throw YAML::Exception(node.Mark(), key + " must be a list");
  for (const YAML::Node& item : node) out.push_back(item.as<std::string>());
  return out;
}

SkillMetadata ParseMetadata(const YAML::Node& node) {
  SkillMetadata meta;
  if (!node) return meta;
  if (!node.IsMap()) throw YAML::Exception(node.Mark(), "cannbot: must be a mapping");
  meta.present = true;
  meta.bottlenecks = StringList(node["bottlenecks"], "bottlenecks");
  meta.ops = StringList(node["ops"], "ops");
  meta.targets = StringList(node["targets"], "targets");
  meta.keywords = StringList(node["keywords"], "keywords");
  if (node["priority"]) meta.priority = std::clamp(node["priority"].as<int>(), 0, 100);
  return meta;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Words of four letters or more, lower-cased: what keyword matching compares.
std::set<std::string> Words(const std::string& text) {
  std::set<std::string> words;
  std::string word;
  for (char c : Lower(text) + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word.push_back(c);
    } else {
      if (word.size() >= 4) words.insert(word);
      word.clear();
    }
  }
  return words;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Ranking key: the severity of the finding a skill answers (3 critical .. 1 info; 0 for a
// keyword match), then its priority.
int SeverityRank(diagnosis::Severity s) {
  switch (s) {
    case diagnosis::Severity::kCritical: return 3;
    case diagnosis::Severity::kWarning: return 2;
    case diagnosis::Severity::kInfo: return 1;
  }
  return 0;
}

const char* SeverityName(diagnosis::Severity s) {
  switch (s) {
    case diagnosis::Severity::kCritical: return "critical";
    case diagnosis::Severity::kWarning: return "warning";
    case diagnosis::Severity::kInfo: return "info";
  }
  return "?";
}

// A skill with cannbot metadata: the most severe finding it addresses, if it applies at all.
bool MatchByMetadata(const Skill& skill, const diagnosis::Diagnosis& diagnosis,
                     const std::string& op, const std::string& target, SkillMatch* match) {
  const SkillMetadata& meta = skill.cannbot;
  if (!meta.targets.empty() && !Contains(meta.targets, target)) return false;
  if (!meta.ops.empty() && !Contains(meta.ops, "*") && !Contains(meta.ops, op)) return false;
  for (const diagnosis::Finding& finding : diagnosis.findings) {  // most severe first
    if (Contains(meta.bottlenecks, finding.bottleneck)) {
      match->score = SeverityRank(finding.severity) * 1000 + meta.priority;
      match->why = "addresses " + finding.bottleneck + " (" + SeverityName(finding.severity) + ")";
      return true;
    }
  }
  return false;
}

// A skill without bottlenecks in its metadata: enough words of its name, description and
// keywords appear in the request (op, target, bottleneck ids, finding summaries).
bool MatchByKeywords(const Skill& skill, const diagnosis::Diagnosis& diagnosis,
                     const std::string& op, const std::string& target, SkillMatch* match) {
  std::string context = op + " " + target;
  for (const diagnosis::Finding& f : diagnosis.findings) {
    std::string id = f.bottleneck;
    std::replace(id.begin(), id.end(), '_', ' ');
    context += " " + id + " " + f.summary;
  }
  std::string own = skill.name + " " + skill.description;
  for (const std::string& k : skill.cannbot.keywords) own += " " + k;
  std::replace(own.begin(), own.end(), '-', ' ');
  const std::set<std::string> wanted = Words(context);
  std::vector<std::string> common;
  for (const std::string& word : Words(own)) {
    if (wanted.count(word)) common.push_back(word);
  }
  const bool names_op = Words(own).count(Lower(op)) > 0;
  if (common.size() < 2 && !names_op) return false;
  match->score = skill.cannbot.present ? skill.cannbot.priority : 50;
  std::string listed;
  for (size_t i = 0; i < common.size() && i < 4; ++i) listed += (i ? ", " : "") + common[i];
  match->why = "keywords match: " + (listed.empty() ? op : listed);
  return true;
}

void LoadRecipes(const fs::path& folder, Skill* skill, std::vector<std::string>* warnings) {
  std::error_code error;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder / "recipes", error)) {
    if (entry.path().extension() == ".cpp") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    auto text = ReadFile(file.string(), 1u << 20);
    auto recipe = text.ok() ? ParseRecipe(*text, file.string()) : Result<Recipe>(text.status());
    if (!recipe.ok()) {
      warnings->push_back("skipping recipe: " + recipe.status().message());
      continue;
    }
    recipe->skill = skill->name;
    skill->recipes.push_back(std::move(recipe).value());
  }
}

}  // namespace

Result<Skill> ParseSkill(const std::string& text, const std::string& path) {
  const std::string kFence = "---";
  if (text.compare(0, kFence.size(), kFence) != 0) {
    return Status::InvalidArgument(path + ": no YAML front matter (the file must start with ---)");
  }
  const size_t end = text.find("\n---", kFence.size());
  if (end == std::string::npos) {
    return Status::InvalidArgument(path + ": the front matter is not closed by a --- line");
  }
  const std::string yaml = text.substr(kFence.size(), end - kFence.size());
  size_t body_start = text.find('\n', end + 1);
  Skill skill;
  skill.body = body_start == std::string::npos ? "" : text.substr(body_start + 1);
  try {
    YAML::Node root = YAML::Load(yaml);
    if (!root.IsMap()) return Status::InvalidArgument(path + ": front matter is not a mapping");
    if (!root["name"] || !root["description"]) {
      return Status::InvalidArgument(path + ": front matter needs `name` and `description`");
    }
    skill.name = root["name"].as<std::string>();
    skill.description = root["description"].as<std::string>();
    skill.cannbot = ParseMetadata(root["cannbot"]);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(path + ": " + e.what());
  }
  if (skill.name.empty()) return Status::InvalidArgument(path + ": empty name");
  return skill;
}

SkillLibrary SkillLibrary::Load(const std::vector<std::string>& directories,
                                std::vector<std::string>* warnings) {
  SkillLibrary library;
  std::set<std::string> seen;
  for (const std::string& dir : directories) {
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      warnings->push_back("skills directory " + dir + " does not exist");
      continue;
    }
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
      if (entry.is_directory() && fs::exists(entry.path() / "SKILL.md")) {
        folders.push_back(entry.path());
      }
    }
    std::sort(folders.begin(), folders.end());
    for (const fs::path& folder : folders) {
      const std::string path = (folder / "SKILL.md").string();
      auto text = ReadFile(path, 1u << 20);
      auto skill = text.ok() ? ParseSkill(*text, path) : Result<Skill>(text.status());
      if (!skill.ok()) {
        warnings->push_back("skipping skill: " + skill.status().message());
        continue;
      }
      if (!seen.insert(skill->name).second) continue;
      skill->directory = folder.string();
      std::vector<fs::path> refs;
      for (const auto& ref : fs::directory_iterator(folder / "references", error)) {
        if (ref.path().extension() == ".md") refs.push_back(ref.path());
      }
      std::sort(refs.begin(), refs.end());
      for (const fs::path& ref : refs) {
        auto ref_text = ReadFile(ref.string(), 1u << 20);
        if (ref_text.ok()) skill->references.push_back({"references/" + ref.filename().string(), *ref_text});
      }
      LoadRecipes(folder, &*skill, warnings);
      library.skills_.push_back(std::move(skill).value());
    }
  }
  return library;
}

const Skill* SkillLibrary::Find(const std::string& name) const {
  for (const Skill& skill : skills_) {
    if (skill.name == name) return &skill;
  }
  return nullptr;
}

std::vector<SkillMatch> SkillLibrary::Select(const diagnosis::Diagnosis& diagnosis,
                                             const std::string& op,
                                             const std::string& target) const {
  std::vector<SkillMatch> matches;
  for (const Skill& skill : skills_) {
    SkillMatch match;
    match.skill = &skill;
    const bool applies = !skill.cannbot.bottlenecks.empty()
                             ? MatchByMetadata(skill, diagnosis, op, target, &match)
                             : MatchByKeywords(skill, diagnosis, op, target, &match);
    if (applies) matches.push_back(match);
  }
  std::sort(matches.begin(), matches.end(), [](const SkillMatch& a, const SkillMatch& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.skill->name < b.skill->name;
  });
  return matches;
}

}  // namespace cannbot::skills
