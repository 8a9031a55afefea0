// `cannbot skills [--show NAME]`: the skills cannbot selects from.
#include <cstdio>
#include <memory>

#include "cannbot/engine/providers.h"
#include "cannbot/config/config.h"
#include "cannbot/skills/skill.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct SkillsFlags {
  std::string show;
  std::vector<std::string> dirs;
  bool json = false;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

int Run(const SkillsFlags& flags) {
  config::Config config;
  Status env = config::ApplyEnvironment(&config);
  if (!env.ok()) return ReportError(env, flags.json);
  std::vector<std::string> warnings;
  skills::SkillLibrary library = engine::LoadSkills(config, flags.dirs, &warnings);
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  if (!flags.show.empty()) {
    const skills::Skill* skill = library.Find(flags.show);
    if (skill == nullptr) return ReportError(Status::NotFound("unknown skill '" + flags.show + "'"), flags.json);
    std::printf("%s: %s\n", skill->name.c_str(), skill->description.c_str());
    if (skill->cannbot.present) {
      std::printf("bottlenecks: %s\nops: %s\ntargets: %s\npriority: %d\n",
                  Join(skill->cannbot.bottlenecks).c_str(), Join(skill->cannbot.ops).c_str(),
                  Join(skill->cannbot.targets).c_str(), skill->cannbot.priority);
    } else {
      std::printf("(no cannbot metadata: matched by the words of its description)\n");
    }
    std::printf("directory: %s\n\n%s", skill->directory.c_str(), skill->body.c_str());
    for (const skills::SkillFile& ref : skill->references) {
      std::printf("\n--- %s ---\n%s", ref.name.c_str(), ref.text.c_str());
    }
    return kExitOk;
  }
  if (flags.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const skills::Skill& s : library.skills()) {
      all.push_back({{"name", s.name}, {"description", s.description},
                     {"bottlenecks", s.cannbot.bottlenecks}, {"ops", s.cannbot.ops},
                     {"targets", s.cannbot.targets}, {"priority", s.cannbot.priority},
                     {"directory", s.directory}});
    }
    std::printf("%s\n", all.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-34s %-4s %-40s %s\n", "skill", "prio", "bottlenecks", "targets");
  for (const skills::Skill& s : library.skills()) {
    std::printf("%-34s %-4d %-40s %s\n", s.name.c_str(), s.cannbot.priority,
                Join(s.cannbot.bottlenecks).c_str(), Join(s.cannbot.targets).c_str());
  }
  std::printf("\n`cannbot skills --show NAME` prints one skill.\n");
  return kExitOk;
}

}  // namespace

Command RegisterSkills(CLI::App& app) {
  auto flags = std::make_shared<SkillsFlags>();
  CLI::App* cmd = app.add_subcommand("skills", "List the skills cannbot selects from");
  cmd->add_option("--show", flags->show, "Print one skill in full");
  cmd->add_option("--skills-dir", flags->dirs, "Extra skills directory (repeatable)");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  return {cmd, [flags] { return Run(*flags); }};
}

}  // namespace cannbot::cli
