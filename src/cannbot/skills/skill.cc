#include "cannbot/skills/skill.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace cannbot::skills {
namespace {

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
  meta.families = StringList(node["families"], "families");
  meta.targets = StringList(node["targets"], "targets");
  meta.keywords = StringList(node["keywords"], "keywords");
  if (node["priority"]) meta.priority = std::clamp(node["priority"].as<int>(), 0, 100);
  return meta;
}

}  // namespace

Result<Skill> ParseSkill(const std::string& text, const std::string& path) {
  // Editors on Windows save a byte-order mark that would hide the opening fence.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) return ParseSkill(text.substr(3), path);
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

const Skill* SkillLibrary::Find(const std::string& name) const {
  for (const Skill& skill : skills_) {
    if (skill.name == name) return &skill;
  }
  return nullptr;
}

}  // namespace cannbot::skills
