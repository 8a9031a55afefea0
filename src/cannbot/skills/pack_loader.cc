// SkillLibrary::Load: finding SKILL.md files in flat skill folders and in published pack
// layouts (skills/*/SKILL.md, plugins/*/skills/*/SKILL.md, any depth), with a report of what
// was loaded, skipped and shadowed.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "cannbot/skills/skill.h"
#include "cannbot/util/fs.h"

namespace cannbot::skills {
namespace {

namespace fs = std::filesystem;

// Bounds on what one directory may cost: a pack is data from elsewhere, possibly a whole
// repository checkout.
constexpr int kMaxPackDepth = 12;
constexpr size_t kMaxPackDirectories = 20000;
constexpr size_t kMaxSkillBytes = 1u << 20;
constexpr size_t kMaxAssetsPerSkill = 200;
constexpr int kMaxAssetDepth = 4;
constexpr uint64_t kMaxNamedFileBytes = 64u << 10;

// Folders a pack search never enters: VCS and tool state, dependency trees.
bool IsSkippedFolder(const std::string& name) {
  return name.empty() || name[0] == '.' || name == "node_modules";
}

struct PackWalk {
  std::set<fs::path> visited;  // canonical folders: a symlink loop ends at its second visit
  std::vector<fs::path> skill_files;
  size_t directories = 0;
  std::vector<std::string> limits;
};

void NoteLimit(PackWalk* walk, const std::string& what) {
  if (std::find(walk->limits.begin(), walk->limits.end(), what) == walk->limits.end()) {
    walk->limits.push_back(what);
  }
}

// Depth first, children in name order, so "the first of two skills with one name" is stable.
void FindSkillFiles(const fs::path& dir, int depth, PackWalk* walk) {
  std::error_code error;
  const fs::path canonical = fs::canonical(dir, error);
  if (error || !walk->visited.insert(canonical).second) return;
  if (++walk->directories > kMaxPackDirectories) {
    return NoteLimit(walk, "stopped after " + std::to_string(kMaxPackDirectories) + " folders");
  }
  if (fs::is_regular_file(dir / "SKILL.md", error)) {
    walk->skill_files.push_back(dir / "SKILL.md");
    return;  // a skill's own folders (references/, templates/) hold no further skills
  }
  if (depth >= kMaxPackDepth) {
    return NoteLimit(walk,
                     "folders deeper than " + std::to_string(kMaxPackDepth) + " not searched");
  }
  std::vector<fs::path> children;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::error_code type_error;
    if (!IsSkippedFolder(it->path().filename().string()) && it->is_directory(type_error)) {
      children.push_back(it->path());
    }
  }
  if (error) NoteLimit(walk, "cannot read " + dir.string() + ": " + error.message());
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) FindSkillFiles(child, depth + 1, walk);
}

// Every file under the skill's side folders, relative to the skill folder, in path order.
void ListAssets(const fs::path& folder, Skill* skill) {
  for (const char* side : {"references", "templates", "scripts", "assets"}) {
    std::error_code error;
    fs::recursive_directory_iterator it(folder / side,
                                        fs::directory_options::skip_permission_denied, error);
    for (fs::recursive_directory_iterator end; !error && it != end; it.increment(error)) {
      if (skill->assets.size() >= kMaxAssetsPerSkill) break;
      const std::string name = it->path().filename().string();
      if (IsSkippedFolder(name) || it.depth() >= kMaxAssetDepth) {
        it.disable_recursion_pending();
        continue;
      }
      std::error_code type_error;
      if (!it->is_regular_file(type_error)) continue;
      SkillAsset asset;
      asset.path =
          std::string(side) + "/" + fs::relative(it->path(), folder / side).generic_string();
      asset.bytes = it->file_size(type_error);
      asset.named_in_body = skill->body.find(name) != std::string::npos;
      skill->assets.push_back(std::move(asset));
    }
  }
  std::sort(skill->assets.begin(), skill->assets.end(),
            [](const SkillAsset& a, const SkillAsset& b) { return a.path < b.path; });
}

// The text the prompt may use, as agent-skill runtimes read a skill: the files its body names
// (references/, templates/), each within kMaxNamedFileBytes; a file nothing names is listed
// among the assets and never offered. Binary files are never loaded.
void LoadReferencedText(const fs::path& folder, Skill* skill) {
  for (SkillAsset& asset : skill->assets) {
    const bool text_side =
        asset.path.rfind("references/", 0) == 0 || asset.path.rfind("templates/", 0) == 0;
    if (!text_side || !asset.named_in_body || asset.bytes > kMaxNamedFileBytes) continue;
    auto text = ReadFile((folder / asset.path).string(), kMaxNamedFileBytes);
    if (!text.ok() || text->find('\0') != std::string::npos) continue;
    asset.loaded = true;
    skill->references.push_back({asset.path, std::move(text).value()});
  }
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

Result<Skill> ReadSkill(const fs::path& file) {
  auto text = ReadFile(file.string(), kMaxSkillBytes);
  if (!text.ok()) return text.status().WithContext(file.string());
  return ParseSkill(*text, file.string());
}

// Parse errors start with the path; the report has it in its own field.
std::string WithoutPath(const std::string& message, const fs::path& file) {
  const std::string prefix = file.string() + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// Where each name was first seen: the folder and the directory (index into Load's list).
using SeenNames = std::map<std::string, std::pair<std::string, size_t>>;

// False when `skill` is shadowed by one seen before; records the pair either way.
bool FirstOfItsName(const Skill& skill, size_t directory, SeenNames* seen, LoadReport* report,
                    std::vector<std::string>* warnings) {
  auto [it, inserted] = seen->emplace(skill.name, std::make_pair(skill.directory, directory));
  if (inserted) return true;
  const bool across = it->second.second != directory;
  report->duplicates.push_back({skill.name, it->second.first, skill.directory, across});
  if (!across) {
    warnings->push_back("duplicate skill name '" + skill.name + "': kept " + it->second.first +
                        ", skipped " + skill.directory);
  }
  return false;
}

}  // namespace

SkillLibrary SkillLibrary::Load(const std::vector<std::string>& directories,
                                std::vector<std::string>* warnings) {
  SkillLibrary library;
  LoadReport& report = library.report_;
  SeenNames seen;
  for (size_t index = 0; index < directories.size(); ++index) {
    LoadReport::Directory entry{directories[index]};
    std::error_code error;
    entry.exists = fs::is_directory(entry.path, error);
    if (!entry.exists) {
      warnings->push_back("skills directory " + entry.path + " does not exist");
      report.directories.push_back(entry);
      continue;
    }
    PackWalk walk;
    FindSkillFiles(entry.path, 0, &walk);
    entry.found = static_cast<int>(walk.skill_files.size());
    for (const std::string& limit : walk.limits) {
      warnings->push_back(entry.path + ": " + limit);
      report.limits.push_back(entry.path + ": " + limit);
    }
    for (const fs::path& file : walk.skill_files) {
      auto skill = ReadSkill(file);
      if (!skill.ok()) {
        warnings->push_back("skipping skill: " + skill.status().message());
        report.skipped.push_back({file.string(), WithoutPath(skill.status().message(), file)});
        continue;
      }
      skill->directory = file.parent_path().string();
      if (!FirstOfItsName(*skill, index, &seen, &report, warnings)) continue;
      ListAssets(file.parent_path(), &*skill);
      LoadReferencedText(file.parent_path(), &*skill);
      LoadRecipes(file.parent_path(), &*skill, warnings);
      library.skills_.push_back(std::move(skill).value());
      ++entry.loaded;
    }
    report.directories.push_back(entry);
  }
  return library;
}

std::vector<std::string> LoadReport::Render() const {
  std::vector<std::string> lines;
  for (const Directory& d : directories) {
    lines.push_back(!d.exists ? d.path + ": does not exist"
                              : d.path + ": loaded " + std::to_string(d.loaded) + " of " +
                                    std::to_string(d.found) + " SKILL.md found");
  }
  for (const Skipped& s : skipped) lines.push_back("skipped " + s.path + ": " + s.reason);
  for (const Duplicate& d : duplicates) {
    lines.push_back((d.override_across_directories ? "overridden '" : "duplicate name '") + d.name +
                    "': kept " + d.kept + ", ignored " + d.dropped);
  }
  for (const std::string& limit : limits) lines.push_back("limit: " + limit);
  return lines;
}

}  // namespace cannbot::skills
