// `cannbot skills`: the skills cannbot selects from, what loading them found, and why each is
// or is not chosen for a request.
//
//   cannbot skills [--skills-dir DIR]... [--json]      built-in, configured and extra skills
//   cannbot skills --dirs DIR [--dirs DIR]...         only these directories or pack roots
//   cannbot skills --show NAME
//   cannbot skills --explain --op OP [--profile FILE [--kernel K]] [--bottleneck ID]...
//                  [--target T] [--json]
#include <cstdio>
#include <algorithm>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>

#include "cannbot/config/config.h"
#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/engine/providers.h"
#include "cannbot/profile/import.h"
#include "cannbot/skills/skill.h"
#include "cannbot/ops/registry.h"
#include "cannbot/target/registry.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct SkillsFlags {
  std::string show;
  std::vector<std::string> extra_dirs;  // --skills-dir: added before the built-in ones
  std::vector<std::string> only_dirs;   // --dirs: exactly these
  bool explain = false;
  std::string op;
  std::string profile;
  std::string kernel;
  std::string target;
  std::vector<std::string> bottlenecks;
  bool json = false;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

Result<skills::SkillLibrary> LoadLibrary(const SkillsFlags& flags) {
  std::vector<std::string> warnings;
  skills::SkillLibrary library;
  if (!flags.only_dirs.empty()) {
    library = skills::SkillLibrary::Load(flags.only_dirs, &warnings);
  } else {
    config::Config config;
    CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(&config));
    library = engine::LoadSkills(config, flags.extra_dirs, &warnings);
  }
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  return library;
}

// The request --explain judges: findings from a profile, and any --bottleneck given by hand.
Result<diagnosis::Diagnosis> RequestDiagnosis(const SkillsFlags& flags) {
  diagnosis::Diagnosis result;
  if (!flags.profile.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                             profile::ImportProfileFile(flags.profile, profile::ImportOptions{}));
    std::string why;
    CANNBOT_ASSIGN_OR_RETURN(const profile::KernelProfile* kernel, p.Pick(flags.kernel, &why));
    result = diagnosis::Diagnose(p, *kernel);
    result.picked_because = why;
  }
  for (const std::string& b : flags.bottlenecks) {
    diagnosis::Finding f;
    f.bottleneck = b;
    f.severity = diagnosis::Severity::kCritical;
    f.summary = "given with --bottleneck";
    result.findings.push_back(f);
  }
  return result;
}

int Explain(const SkillsFlags& flags, const skills::SkillLibrary& library,
            const ops::Registry& registry) {
  if (flags.op.empty())
    return ReportError(Status::InvalidArgument("--explain needs --op OP"), flags.json);
  auto target = target::Parse(flags.target.empty() ? target::Default().name() : flags.target);
  if (!target.ok()) return ReportError(target.status(), flags.json);
  auto diagnosis = RequestDiagnosis(flags);
  if (!diagnosis.ok()) return ReportError(diagnosis.status(), flags.json);
  const std::string target_name((*target)->name());
  const ops::OpSpec* op = registry.Find(flags.op);  // an op cannbot does not know has no family
  const auto verdicts = library.Explain(*diagnosis, op != nullptr ? op->BaseName() : flags.op,
                                        target_name, op != nullptr ? op->family : "");
  if (flags.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const skills::SkillVerdict& v : verdicts) {
      out.push_back({{"skill", v.match.skill->name},
                     {"selected", v.selected},
                     {"score", v.match.score},
                     {"method", v.method},
                     {"why", v.match.why}});
    }
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  std::string findings;
  for (const diagnosis::Finding& f : diagnosis->findings) {
    findings += (findings.empty() ? "" : ", ") + f.bottleneck + " (" +
                diagnosis::SeverityLabel(f.severity) + ")";
  }
  std::printf("op %s, target %s, findings: %s\n\n%s", flags.op.c_str(), target_name.c_str(),
              findings.empty() ? "none" : findings.c_str(),
              skills::RenderExplanation(verdicts).c_str());
  return kExitOk;
}

int Show(const SkillsFlags& flags, const skills::SkillLibrary& library) {
  const skills::Skill* skill = library.Find(flags.show);
  if (skill == nullptr)
    return ReportError(Status::NotFound("unknown skill '" + flags.show + "'"), flags.json);
  std::printf("%s: %s\n", skill->name.c_str(), skill->description.c_str());
  if (skill->cannbot.present) {
    std::printf("bottlenecks: %s\nops: %s\ntargets: %s\npriority: %d\n",
                Join(skill->cannbot.bottlenecks).c_str(), Join(skill->cannbot.ops).c_str(),
                Join(skill->cannbot.targets).c_str(), skill->cannbot.priority);
  } else {
    std::printf("(no cannbot metadata: matched by its text, in English or Chinese)\n");
  }
  for (const skills::SkillAsset& a : skill->assets) {
    std::printf("file: %s (%llu bytes%s)\n", a.path.c_str(),
                static_cast<unsigned long long>(a.bytes), a.loaded ? ", loaded" : "");
  }
  std::printf("directory: %s\n\n%s", skill->directory.c_str(), skill->body.c_str());
  for (const skills::SkillFile& ref : skill->references) {
    std::printf("\n--- %s ---\n%s", ref.name.c_str(), ref.text.c_str());
  }
  return kExitOk;
}

nlohmann::json ListJson(const skills::SkillLibrary& library) {
  nlohmann::json all = nlohmann::json::array();
  for (const skills::Skill& s : library.skills()) {
    all.push_back({{"name", s.name},
                   {"description", s.description},
                   {"bottlenecks", s.cannbot.bottlenecks},
                   {"ops", s.cannbot.ops},
                   {"families", s.cannbot.families},
                   {"targets", s.cannbot.targets},
                   {"priority", s.cannbot.priority},
                   {"directory", s.directory}});
  }
  return all;
}

// The ops a skill's declared scope admits: "all N ops", or its families and ops with the count.
std::string Serves(const skills::Skill& s, const ops::Registry& registry) {
  const auto& meta = s.cannbot;
  std::set<std::string> all, served;
  for (const ops::OpSpec& op : registry.ops()) {
    all.insert(op.BaseName());
    if (meta.Serves(op.BaseName(), op.family)) served.insert(op.BaseName());
  }
  if (served.size() == all.size()) return "all " + std::to_string(all.size()) + " ops";
  std::string what = meta.families.empty() ? "" : Join(meta.families);
  std::string named;
  for (const std::string& op : meta.ops) named += (named.empty() ? "" : ", ") + op;
  if (!named.empty()) what += (what.empty() ? "" : "; ") + named;
  return std::to_string(served.size()) + " ops: " + what;
}

void PrintList(const skills::SkillLibrary& library, const ops::Registry& registry) {
  std::printf("%-34s %-4s %-40s %-14s %s\n", "skill", "prio", "bottlenecks (or: matched by text)",
              "targets", "serves (families; ops)");
  for (const skills::Skill& s : library.skills()) {
    const std::string how = s.cannbot.bottlenecks.empty() ? "(text)" : Join(s.cannbot.bottlenecks);
    std::printf("%-34s %-4d %-40s %-14s %s\n", s.name.c_str(), s.cannbot.priority, how.c_str(),
                Join(s.cannbot.targets).c_str(), Serves(s, registry).c_str());
  }
  std::printf("\n");
  for (const std::string& line : library.report().Render()) std::printf("%s\n", line.c_str());
  std::printf(
      "\n`cannbot skills --show NAME` prints one skill; `--explain --op OP` says why each is "
      "chosen.\n");
}

int Run(const SkillsFlags& flags, const ops::Registry& registry) {
  auto library = LoadLibrary(flags);
  if (!library.ok()) return ReportError(library.status(), flags.json);
  if (flags.explain) return Explain(flags, *library, registry);
  if (!flags.show.empty()) return Show(flags, *library);
  if (flags.json) {
    std::printf(
        "%s\n",
        ListJson(*library).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else {
    PrintList(*library, registry);
  }
  return kExitOk;
}

}  // namespace

Command RegisterSkills(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<SkillsFlags>();
  CLI::App* cmd = app.add_subcommand("skills", "List the skills cannbot selects from");
  cmd->add_option("--show", flags->show, "Print one skill in full");
  cmd->add_option("--skills-dir", flags->extra_dirs, "Extra skills directory (repeatable)");
  cmd->add_option("--dirs", flags->only_dirs,
                  "Load only these directories or skill-pack roots (repeatable), with a report");
  cmd->add_flag("--explain", flags->explain, "Score every skill for --op and say why");
  cmd->add_option("--op", flags->op, "Op for --explain");
  cmd->add_option("--profile", flags->profile, "Profiler output to diagnose for --explain");
  cmd->add_option("--kernel", flags->kernel, "Kernel of the profile (default: the hottest)");
  cmd->add_option("--target", flags->target, "Target for --explain (" + target::Names() + ")");
  cmd->add_option("--bottleneck", flags->bottlenecks,
                  "Bottleneck id to treat as a critical finding (repeatable)");
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
