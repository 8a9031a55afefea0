// Skills (skills/skill.h): parsing SKILL.md, loading directories, and selection by diagnosis,
// op and target, including every real skill shipped under skills/.
#include "cannbot/skills/skill.h"
#include "builtin_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cannbot/ops/registry.h"
#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot::skills {
namespace {

namespace fs = std::filesystem;
using diagnosis::Severity;

using cannbot::test::Contains;

const std::string kSkillsDir = std::string(CANNBOT_SOURCE_DIR) + "/skills";
const std::string kTeamDir = std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/skills/team";

const std::vector<std::string> kAllBottlenecks = {
    diagnosis::kMemoryBound,    diagnosis::kCacheMisses,   diagnosis::kLowVectorization,
    diagnosis::kControlFlow,    diagnosis::kLayoutMismatch, diagnosis::kLatencyBound,
    diagnosis::kCoreImbalance,  diagnosis::kSerializedPipelines, diagnosis::kComputeBound,
    diagnosis::kSubnormalNumbers, diagnosis::kCubeStarved,
};
const std::vector<std::string> kAllTargets = {"cpu", "ascendc"};

diagnosis::Finding MakeFinding(const std::string& bottleneck, Severity severity,
                               const std::string& summary = "") {
  diagnosis::Finding f;
  f.bottleneck = bottleneck;
  f.severity = severity;
  f.summary = summary;
  return f;
}

diagnosis::Diagnosis OneFinding(const std::string& bottleneck, Severity severity = Severity::kCritical,
                                const std::string& summary = "") {
  diagnosis::Diagnosis d;
  d.findings.push_back(MakeFinding(bottleneck, severity, summary));
  return d;
}

std::vector<std::string> Names(const std::vector<SkillMatch>& matches) {
  std::vector<std::string> names;
  for (const SkillMatch& m : matches) names.push_back(m.skill->name);
  return names;
}

bool Selected(const std::vector<SkillMatch>& matches, const std::string& name) {
  for (const SkillMatch& m : matches) {
    if (m.skill->name == name) return true;
  }
  return false;
}

std::string SkillFile(const std::string& name, const std::string& extra_front_matter = "",
                      const std::string& description = "") {
  return "---\nname: " + name + "\ndescription: " +
         (description.empty() ? "Fixture skill " + name + "." : description) + "\n" +
         extra_front_matter + "---\n# " + name + "\n\nBody of " + name + ".\n";
}

// Writes <dir>/<folder>/SKILL.md.
void AddSkill(const TempDir& dir, const std::string& folder, const std::string& text) {
  fs::create_directories(dir.File(folder));
  ASSERT_TRUE(WriteFile(dir.File(folder + "/SKILL.md"), text).ok());
}

// ---------------------------------------------------------------------------------------------
// ParseSkill

TEST(ParseSkillTest, ParsesFrontMatterMetadataAndBody) {
  const std::string text =
      "---\nname: my-skill\ndescription: Does things.\ncannbot:\n"
      "  bottlenecks: [memory_bound, cache_misses]\n  ops: [\"*\"]\n  targets: [cpu]\n"
      "  priority: 70\n  keywords: [tiling, prefetch]\n---\n# Title\nLine two.\n";
  auto skill = ParseSkill(text, "/x/my-skill/SKILL.md");
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_EQ(skill->name, "my-skill");
  EXPECT_EQ(skill->description, "Does things.");
  EXPECT_TRUE(skill->cannbot.present);
  EXPECT_EQ(skill->cannbot.bottlenecks, (std::vector<std::string>{"memory_bound", "cache_misses"}));
  EXPECT_EQ(skill->cannbot.ops, (std::vector<std::string>{"*"}));
  EXPECT_EQ(skill->cannbot.targets, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(skill->cannbot.keywords, (std::vector<std::string>{"tiling", "prefetch"}));
  EXPECT_EQ(skill->cannbot.priority, 70);
  EXPECT_EQ(skill->body, "# Title\nLine two.\n");
}

TEST(ParseSkillTest, WithoutCannbotBlockMetadataIsAbsentWithDefaults) {
  auto skill = ParseSkill(SkillFile("plain"), "p/SKILL.md");
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_FALSE(skill->cannbot.present);
  EXPECT_TRUE(skill->cannbot.bottlenecks.empty());
  EXPECT_EQ(skill->cannbot.priority, 50);
}

TEST(ParseSkillTest, PriorityIsClampedAndScalarListsAreAccepted) {
  auto skill = ParseSkill(SkillFile("p", "cannbot:\n  bottlenecks: memory_bound\n  priority: 150\n"),
                          "p/SKILL.md");
  ASSERT_TRUE(skill.ok()) << skill.status().ToString();
  EXPECT_EQ(skill->cannbot.priority, 100);
  EXPECT_EQ(skill->cannbot.bottlenecks, (std::vector<std::string>{"memory_bound"}));
}

struct BadSkill {
  const char* what;
  std::string text;
};

TEST(ParseSkillTest, ErrorsNameTheFile) {
  const std::string path = "/team/skills/broken/SKILL.md";
  const std::vector<BadSkill> cases = {
      {"no front matter", "# Just markdown\n\nNo YAML here.\n"},
      {"front matter after text", "Intro\n---\nname: x\ndescription: y\n---\n"},
      {"unclosed front matter", "---\nname: x\ndescription: y\n# body without a closing line\n"},
      {"missing name", "---\ndescription: y\n---\nbody\n"},
      {"missing description", "---\nname: x\n---\nbody\n"},
      {"empty name", "---\nname: \"\"\ndescription: y\n---\nbody\n"},
      {"malformed YAML", "---\nname: [unclosed\ndescription: y\n---\nbody\n"},
      {"malformed YAML indentation", "---\nname: x\n  description: : y\n---\nbody\n"},
      {"front matter is a list", "---\n- name\n- description\n---\nbody\n"},
      {"cannbot is a list", SkillFile("x", "cannbot: [memory_bound]\n")},
      {"cannbot is a scalar", SkillFile("x", "cannbot: yes\n")},
      {"bottlenecks is a mapping", SkillFile("x", "cannbot:\n  bottlenecks: {a: b}\n")},
      {"priority is not a number", SkillFile("x", "cannbot:\n  priority: high\n")},
  };
  for (const BadSkill& c : cases) {
    auto skill = ParseSkill(c.text, path);
    ASSERT_FALSE(skill.ok()) << c.what;
    EXPECT_EQ(skill.status().code(), Status::Code::kInvalidArgument) << c.what;
    EXPECT_TRUE(Contains(skill.status().message(), path))
        << c.what << ": " << skill.status().message();
  }
}

TEST(ParseSkillTest, ErrorsSayWhatIsWrong) {
  auto none = ParseSkill("# no yaml\n", "a/SKILL.md");
  EXPECT_TRUE(Contains(none.status().message(), "front matter")) << none.status().message();
  auto unclosed = ParseSkill("---\nname: x\n", "a/SKILL.md");
  EXPECT_TRUE(Contains(unclosed.status().message(), "not closed")) << unclosed.status().message();
  auto no_name = ParseSkill("---\ndescription: y\n---\n", "a/SKILL.md");
  EXPECT_TRUE(Contains(no_name.status().message(), "name")) << no_name.status().message();
  auto cannbot = ParseSkill(SkillFile("x", "cannbot: [memory_bound]\n"), "a/SKILL.md");
  EXPECT_TRUE(Contains(cannbot.status().message(), "cannbot")) << cannbot.status().message();
}

// ---------------------------------------------------------------------------------------------
// SkillLibrary::Load

TEST(SkillLibraryLoadTest, MalformedSkillsAreSkippedWithAWarningNamingTheFile) {
  auto dir = TempDir::Create("cannbot-skills-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  AddSkill(*dir, "a-good", SkillFile("a-good"));
  AddSkill(*dir, "b-no-front-matter", "# nothing\n");
  AddSkill(*dir, "c-good", SkillFile("c-good"));
  AddSkill(*dir, "d-bad-cannbot", SkillFile("d-bad-cannbot", "cannbot: [memory_bound]\n"));
  fs::create_directories(dir->File("e-no-skill-md"));  // not a skill: ignored silently
  ASSERT_TRUE(WriteFile(dir->File("README.md"), "not a skill").ok());

  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->path()}, &warnings);
  std::vector<std::string> names;
  for (const Skill& s : library.skills()) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a-good", "c-good"}));
  ASSERT_EQ(warnings.size(), 2u) << ::testing::PrintToString(warnings);
  EXPECT_TRUE(Contains(warnings[0], dir->File("b-no-front-matter/SKILL.md"))) << warnings[0];
  EXPECT_TRUE(Contains(warnings[1], dir->File("d-bad-cannbot/SKILL.md"))) << warnings[1];
  EXPECT_EQ(library.Find("a-good")->directory, dir->File("a-good"));
  EXPECT_EQ(library.Find("b-no-front-matter"), nullptr);
}

TEST(SkillLibraryLoadTest, MissingDirectoryIsAWarningAndTheRestStillLoads) {
  auto dir = TempDir::Create("cannbot-skills-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  AddSkill(*dir, "only", SkillFile("only"));
  const std::string missing = dir->File("no-such-directory");
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({missing, dir->path()}, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(Contains(warnings[0], missing)) << warnings[0];
  ASSERT_EQ(library.skills().size(), 1u);
  EXPECT_EQ(library.skills()[0].name, "only");
}

TEST(SkillLibraryLoadTest, EarlierDirectoryOverridesASkillOfTheSameName) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kTeamDir, kSkillsDir}, &warnings);
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  const Skill* skill = library.Find("vectorize-simd");
  ASSERT_NE(skill, nullptr);
  EXPECT_TRUE(Contains(skill->description, "TEAM OVERRIDE")) << skill->description;
  EXPECT_EQ(skill->directory, kTeamDir + "/vectorize-simd");
  EXPECT_EQ(skill->cannbot.priority, 99);
  EXPECT_EQ(std::count_if(library.skills().begin(), library.skills().end(),
                          [](const Skill& s) { return s.name == "vectorize-simd"; }),
            1);
  // Built-in skills with other names are still there, and the team's new skill is added.
  EXPECT_NE(library.Find("branch-elimination"), nullptr);
  EXPECT_NE(library.Find("bandwidth-streaming"), nullptr);

  // The other way round, the built-in one wins.
  SkillLibrary reversed = SkillLibrary::Load({kSkillsDir, kTeamDir}, &warnings);
  ASSERT_NE(reversed.Find("vectorize-simd"), nullptr);
  EXPECT_FALSE(Contains(reversed.Find("vectorize-simd")->description, "TEAM OVERRIDE"));
}

TEST(SkillLibraryLoadTest, OverrideChangesSelection) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kTeamDir, kSkillsDir}, &warnings);
  // The team's vectorize-simd is cpu-only; the built-in one also covers ascendc.
  auto cpu = library.Select(OneFinding(diagnosis::kLowVectorization), "add", "cpu");
  auto ascend = library.Select(OneFinding(diagnosis::kLowVectorization), "add", "ascendc");
  EXPECT_TRUE(Selected(cpu, "vectorize-simd"));
  EXPECT_FALSE(Selected(ascend, "vectorize-simd"));
}

TEST(SkillLibraryLoadTest, DeclaredFamiliesAdmitEveryOpOfTheFamilyInEveryDtype) {
  auto dir = TempDir::Create("cannbot-skills-families");
  ASSERT_TRUE(dir.ok());
  AddSkill(*dir, "smooth-math",
           SkillFile("smooth-math", "cannbot:\n  bottlenecks: [compute_bound]\n"
                                    "  ops: [matmul]\n  families: [activation]\n"));
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->path()}, &warnings);
  const auto finding = OneFinding(diagnosis::kComputeBound);
  // By family (the op's spec says activation), whatever the op's name or dtype.
  EXPECT_TRUE(Selected(library.Select(finding, "mish", "cpu", "activation"), "smooth-math"));
  // By name.
  EXPECT_TRUE(Selected(library.Select(finding, "matmul", "cpu", "matmul"), "smooth-math"));
  // Neither: refused, and the reason names both lists.
  EXPECT_FALSE(Selected(library.Select(finding, "reduce_sum", "cpu", "reduction"), "smooth-math"));
  const auto verdicts = library.Explain(finding, "reduce_sum", "cpu", "reduction");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_TRUE(Contains(verdicts[0].match.why, "families [activation]")) << verdicts[0].match.why;
}

TEST(SkillLibraryLoadTest, ReferencesAreLoaded) {
  std::vector<std::string> warnings;
  SkillLibrary team = SkillLibrary::Load({kTeamDir}, &warnings);
  const Skill* fixture = team.Find("bandwidth-streaming");
  ASSERT_NE(fixture, nullptr);
  // The body names references/notes.md; references/unnamed.md is an asset, never loaded.
  ASSERT_EQ(fixture->references.size(), 1u);
  EXPECT_EQ(fixture->references[0].name, "references/notes.md");
  EXPECT_EQ(fixture->references[0].text,
            *ReadFile(kTeamDir + "/bandwidth-streaming/references/notes.md"));
  bool listed = false;
  for (const SkillAsset& asset : fixture->assets) {
    if (asset.path == "references/unnamed.md") listed = !asset.loaded && !asset.named_in_body;
  }
  EXPECT_TRUE(listed);

  // Every real skill: exactly its references/*.md files, in name order, with their text.
  SkillLibrary library = SkillLibrary::Load({kSkillsDir}, &warnings);
  int with_references = 0;
  for (const Skill& skill : library.skills()) {
    std::vector<std::string> expected;
    const fs::path refs = fs::path(skill.directory) / "references";
    if (fs::is_directory(refs)) {
      for (const auto& entry : fs::directory_iterator(refs)) {
        if (entry.path().extension() == ".md") expected.push_back(entry.path().filename().string());
      }
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(skill.references.size(), expected.size()) << skill.name;
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(skill.references[i].name, "references/" + expected[i]) << skill.name;
      EXPECT_EQ(skill.references[i].text, *ReadFile((refs / expected[i]).string())) << skill.name;
      EXPECT_FALSE(skill.references[i].text.empty()) << skill.name << " " << expected[i];
    }
    if (!expected.empty()) ++with_references;
  }
  EXPECT_GT(with_references, 0);
}

// ---------------------------------------------------------------------------------------------
// Every real skill under skills/

class RealSkillsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> warnings;
    library_ = SkillLibrary::Load({kSkillsDir}, &warnings);
    EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
    for (const auto& entry : fs::directory_iterator(kSkillsDir)) {
      if (entry.is_directory() && fs::exists(entry.path() / "SKILL.md")) {
        folders_.push_back(entry.path().filename().string());
      }
    }
    std::sort(folders_.begin(), folders_.end());
    ASSERT_GE(folders_.size(), 10u);  // the issue asks for at least ten real skills
    all_ops_ = cannbot_test::BuiltInOps().Names();
    ASSERT_FALSE(all_ops_.empty());
  }

  const Skill& Get(const std::string& folder) const {
    static const Skill kMissing;
    const Skill* skill = library_.Find(folder);
    if (skill == nullptr) {
      ADD_FAILURE() << folder << ": not loaded (or its `name` differs from the folder)";
      return kMissing;
    }
    return *skill;
  }

  std::vector<std::string> OpsOf(const Skill& s) const {
    if (std::find(s.cannbot.ops.begin(), s.cannbot.ops.end(), "*") != s.cannbot.ops.end()) {
      return all_ops_;
    }
    return s.cannbot.ops;
  }
  static std::vector<std::string> TargetsOf(const Skill& s) {
    return s.cannbot.targets.empty() ? kAllTargets : s.cannbot.targets;
  }

  SkillLibrary library_;
  std::vector<std::string> folders_;
  std::vector<std::string> all_ops_;
};

TEST_F(RealSkillsTest, EveryFolderLoadsWithWellFormedMetadata) {
  EXPECT_EQ(library_.skills().size(), folders_.size());
  const std::set<std::string> known_ops(all_ops_.begin(), all_ops_.end());
  const std::set<std::string> known_bottlenecks(kAllBottlenecks.begin(), kAllBottlenecks.end());
  for (const std::string& folder : folders_) {
    const Skill* skill = library_.Find(folder);
    ASSERT_NE(skill, nullptr) << folder << ": the folder name and `name` must be equal";
    EXPECT_FALSE(skill->description.empty()) << folder;
    EXPECT_FALSE(skill->body.empty()) << folder;
    EXPECT_TRUE(skill->cannbot.present) << folder;
    EXPECT_FALSE(skill->cannbot.bottlenecks.empty()) << folder;
    for (const std::string& b : skill->cannbot.bottlenecks) {
      EXPECT_TRUE(known_bottlenecks.count(b)) << folder << ": unknown bottleneck " << b;
    }
    EXPECT_FALSE(skill->cannbot.ops.empty()) << folder;
    for (const std::string& op : skill->cannbot.ops) {
      EXPECT_TRUE(op == "*" || known_ops.count(op)) << folder << ": unknown op " << op;
    }
    for (const std::string& t : skill->cannbot.targets) {
      EXPECT_TRUE(t == "cpu" || t == "ascendc") << folder << ": unknown target " << t;
    }
    EXPECT_GE(skill->cannbot.priority, 0) << folder;
    EXPECT_LE(skill->cannbot.priority, 100) << folder;
  }
}

TEST_F(RealSkillsTest, EachSkillFiresOnEachOfItsBottlenecks) {
  for (const std::string& folder : folders_) {
    const Skill& skill = Get(folder);
    if (skill.name.empty()) continue;
    for (const std::string& bottleneck : skill.cannbot.bottlenecks) {
      for (const std::string& op : OpsOf(skill)) {
        for (const std::string& target : TargetsOf(skill)) {
          auto matches = library_.Select(OneFinding(bottleneck), op, target);
          auto it = std::find_if(matches.begin(), matches.end(),
                                 [&](const SkillMatch& m) { return m.skill == &skill; });
          ASSERT_NE(it, matches.end())
              << folder << " not selected for " << bottleneck << ", op " << op << ", " << target;
          EXPECT_TRUE(Contains(it->why, bottleneck)) << it->why;
          EXPECT_TRUE(Contains(it->why, "critical")) << it->why;
          EXPECT_DOUBLE_EQ(it->score, 3000 + skill.cannbot.priority);
        }
      }
    }
  }
}

TEST_F(RealSkillsTest, EachSkillStaysQuietOnUnrelatedBottlenecks) {
  for (const std::string& folder : folders_) {
    const Skill& skill = Get(folder);
    if (skill.name.empty()) continue;
    int unrelated = 0;
    for (const std::string& bottleneck : kAllBottlenecks) {
      if (std::find(skill.cannbot.bottlenecks.begin(), skill.cannbot.bottlenecks.end(),
                    bottleneck) != skill.cannbot.bottlenecks.end()) {
        continue;
      }
      ++unrelated;
      for (const std::string& op : OpsOf(skill)) {
        for (const std::string& target : TargetsOf(skill)) {
          auto matches = library_.Select(OneFinding(bottleneck), op, target);
          EXPECT_FALSE(Selected(matches, skill.name))
              << folder << " selected for unrelated " << bottleneck << ", op " << op << ", "
              << target;
        }
      }
    }
    EXPECT_GT(unrelated, 0) << folder << " claims every bottleneck";
    // And an empty diagnosis selects nothing.
    EXPECT_FALSE(Selected(library_.Select(diagnosis::Diagnosis{}, OpsOf(skill)[0],
                                          TargetsOf(skill)[0]),
                          skill.name))
        << folder;
  }
}

TEST_F(RealSkillsTest, TargetFilteringExcludesTargetsASkillDoesNotList) {
  int checked = 0;
  for (const std::string& folder : folders_) {
    const Skill& skill = Get(folder);
    if (skill.name.empty()) continue;
    for (const std::string& target : kAllTargets) {
      if (skill.cannbot.targets.empty() ||
          std::find(skill.cannbot.targets.begin(), skill.cannbot.targets.end(), target) !=
              skill.cannbot.targets.end()) {
        continue;
      }
      ++checked;
      for (const std::string& bottleneck : skill.cannbot.bottlenecks) {
        for (const std::string& op : OpsOf(skill)) {
          EXPECT_FALSE(Selected(library_.Select(OneFinding(bottleneck), op, target), skill.name))
              << folder << " selected for " << target;
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << "no real skill is restricted to one target (ascendc-only ones were)";
}

TEST_F(RealSkillsTest, OpFilteringExcludesOpsASkillDoesNotList) {
  int checked = 0;
  for (const std::string& folder : folders_) {
    const Skill& skill = Get(folder);
    if (skill.name.empty()) continue;
    const std::vector<std::string> allowed = OpsOf(skill);
    for (const std::string& op : all_ops_) {
      if (std::find(allowed.begin(), allowed.end(), op) != allowed.end()) continue;
      ++checked;
      for (const std::string& bottleneck : skill.cannbot.bottlenecks) {
        for (const std::string& target : TargetsOf(skill)) {
          EXPECT_FALSE(Selected(library_.Select(OneFinding(bottleneck), op, target), skill.name))
              << folder << " selected for op " << op;
        }
      }
    }
  }
  EXPECT_GT(checked, 0) << "no real skill is restricted to some ops";
}

TEST_F(RealSkillsTest, AscendOnlySkillIsNotSelectedForCpu) {
  const Skill* skill = library_.Find("ascendc-vector-kernel");
  ASSERT_NE(skill, nullptr);
  ASSERT_EQ(skill->cannbot.targets, (std::vector<std::string>{"ascendc"}));
  EXPECT_TRUE(Selected(library_.Select(OneFinding(diagnosis::kMemoryBound), "add", "ascendc"),
                       "ascendc-vector-kernel"));
  EXPECT_FALSE(Selected(library_.Select(OneFinding(diagnosis::kMemoryBound), "add", "cpu"),
                        "ascendc-vector-kernel"));
}

TEST_F(RealSkillsTest, MatmulOnlySkillIsNotSelectedForAnElementwiseOp) {
  const Skill* skill = library_.Find("register-tiling-microkernel");
  ASSERT_NE(skill, nullptr);
  EXPECT_TRUE(Selected(library_.Select(OneFinding(diagnosis::kComputeBound), "matmul", "cpu"),
                       "register-tiling-microkernel"));
  EXPECT_FALSE(Selected(library_.Select(OneFinding(diagnosis::kComputeBound), "relu", "cpu"),
                        "register-tiling-microkernel"));
}

// ---------------------------------------------------------------------------------------------
// Ranking and keyword matching

TEST(SkillSelectTest, RankingIsSeverityThenPriorityThenName) {
  auto dir = TempDir::Create("cannbot-skills-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  auto meta = [](const std::string& bottlenecks, int priority) {
    return "cannbot:\n  bottlenecks: [" + bottlenecks + "]\n  ops: [\"*\"]\n  priority: " +
           std::to_string(priority) + "\n";
  };
  AddSkill(*dir, "zeta-crit", SkillFile("zeta-crit", meta("memory_bound", 70)));
  AddSkill(*dir, "alpha-crit", SkillFile("alpha-crit", meta("memory_bound", 70)));
  AddSkill(*dir, "crit-high", SkillFile("crit-high", meta("memory_bound", 90)));
  AddSkill(*dir, "crit-low", SkillFile("crit-low", meta("memory_bound", 10)));
  AddSkill(*dir, "warn-top", SkillFile("warn-top", meta("control_flow", 100)));
  // Answers both findings: ranked by the more severe one.
  AddSkill(*dir, "both-low", SkillFile("both-low", meta("control_flow, memory_bound", 0)));
  AddSkill(*dir, "unrelated", SkillFile("unrelated", meta("layout_mismatch", 100)));
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->path()}, &warnings);
  ASSERT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);

  diagnosis::Diagnosis d;  // most severe first, as Diagnose() orders them
  d.findings.push_back(MakeFinding(diagnosis::kMemoryBound, Severity::kCritical));
  d.findings.push_back(MakeFinding(diagnosis::kControlFlow, Severity::kWarning));
  auto matches = library.Select(d, "add", "cpu");
  EXPECT_EQ(Names(matches), (std::vector<std::string>{"crit-high", "alpha-crit", "zeta-crit",
                                                      "crit-low", "both-low", "warn-top"}));
  for (const SkillMatch& m : matches) {
    if (m.skill->name == "warn-top") {
      EXPECT_TRUE(Contains(m.why, "warning")) << m.why;
    }
    if (m.skill->name == "both-low") {
      EXPECT_TRUE(Contains(m.why, "memory_bound")) << m.why;
    }
  }
}

TEST(SkillSelectTest, TargetAndOpFilteringOnFixtureSkills) {
  auto dir = TempDir::Create("cannbot-skills-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  AddSkill(*dir, "ascend-only",
           SkillFile("ascend-only", "cannbot:\n  bottlenecks: [memory_bound]\n  targets: [ascendc]\n"));
  AddSkill(*dir, "any-target", SkillFile("any-target", "cannbot:\n  bottlenecks: [memory_bound]\n"));
  AddSkill(*dir, "matmul-only",
           SkillFile("matmul-only", "cannbot:\n  bottlenecks: [memory_bound]\n  ops: [matmul]\n"));
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->path()}, &warnings);
  const auto d = OneFinding(diagnosis::kMemoryBound);
  EXPECT_EQ(Names(library.Select(d, "matmul", "ascendc")),
            (std::vector<std::string>{"any-target", "ascend-only", "matmul-only"}));
  EXPECT_EQ(Names(library.Select(d, "matmul", "cpu")),
            (std::vector<std::string>{"any-target", "matmul-only"}));
  EXPECT_EQ(Names(library.Select(d, "add", "cpu")), (std::vector<std::string>{"any-target"}));
}

TEST(SkillSelectTest, KeywordMatchingSelectsASkillWithoutMetadataOnSharedWords) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kTeamDir}, &warnings);
  const Skill* skill = library.Find("bandwidth-streaming");
  ASSERT_NE(skill, nullptr);
  ASSERT_FALSE(skill->cannbot.present);

  auto memory = library.Select(
      OneFinding(diagnosis::kMemoryBound, Severity::kCritical,
                 "the kernel is limited by memory bandwidth: 91% of peak DRAM throughput"),
      "swish", "cpu");
  ASSERT_TRUE(Selected(memory, "bandwidth-streaming")) << ::testing::PrintToString(Names(memory));
  for (const SkillMatch& m : memory) {
    if (m.skill->name != "bandwidth-streaming") continue;
    EXPECT_TRUE(Contains(m.why, "memory")) << m.why;
    EXPECT_TRUE(Contains(m.why, "bandwidth")) << m.why;
  }

  auto vector = library.Select(
      OneFinding(diagnosis::kLowVectorization, Severity::kWarning,
                 "too little vectorisation in the inner loops"),
      "gelu", "ascendc");
  EXPECT_TRUE(Selected(vector, "bandwidth-streaming")) << ::testing::PrintToString(Names(vector));
}

TEST(SkillSelectTest, KeywordMatchingIgnoresAnUnrelatedDiagnosis) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kTeamDir}, &warnings);
  auto matches = library.Select(
      OneFinding(diagnosis::kControlFlow, Severity::kCritical,
                 "branch mispredictions dominate: 12% of branches miss"),
      "matmul", "cpu");
  EXPECT_FALSE(Selected(matches, "bandwidth-streaming")) << ::testing::PrintToString(Names(matches));
  // One shared word is not enough.
  auto one_word = library.Select(
      OneFinding(diagnosis::kControlFlow, Severity::kCritical, "prefetch misses"), "matmul", "cpu");
  EXPECT_FALSE(Selected(one_word, "bandwidth-streaming"));
  // Nor is an empty diagnosis.
  EXPECT_FALSE(Selected(library.Select(diagnosis::Diagnosis{}, "add", "cpu"), "bandwidth-streaming"));
}

TEST(SkillSelectTest, KeywordMatchesRankAfterMetadataMatches) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kTeamDir, kSkillsDir}, &warnings);
  auto matches = library.Select(
      OneFinding(diagnosis::kMemoryBound, Severity::kWarning,
                 "the kernel is limited by memory bandwidth"),
      "swish", "cpu");
  const std::vector<std::string> names = Names(matches);
  ASSERT_TRUE(Selected(matches, "bandwidth-streaming")) << ::testing::PrintToString(names);
  ASSERT_TRUE(Selected(matches, "memory-tiling-double-buffering")) << ::testing::PrintToString(names);
  EXPECT_EQ(names.back(), "bandwidth-streaming") << ::testing::PrintToString(names);
}

}  // namespace
}  // namespace cannbot::skills
