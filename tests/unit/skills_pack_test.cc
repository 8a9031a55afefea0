// Skill packs in the published layout (tests/fixtures/skill_packs/demo-pack): loading a pack
// root with its report, and selection by text in English or Chinese (skills/selection.cc,
// skills/glossary.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cannbot/skills/glossary.h"
#include "cannbot/skills/skill.h"
#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot::skills {
namespace {

namespace fs = std::filesystem;
using cannbot::test::Contains;
using diagnosis::Severity;

const std::string kPackRoot =
    std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/skill_packs/demo-pack";
const std::string kBuiltInSkills = std::string(CANNBOT_SOURCE_DIR) + "/skills";

diagnosis::Finding PackFinding(const std::string& bottleneck, Severity severity,
                               const std::string& summary) {
  diagnosis::Finding f;
  f.bottleneck = bottleneck;
  f.severity = severity;
  f.summary = summary;
  return f;
}

diagnosis::Diagnosis CriticalOnly(const std::string& bottleneck, const std::string& summary) {
  diagnosis::Diagnosis d;
  d.findings.push_back(PackFinding(bottleneck, Severity::kCritical, summary));
  return d;
}

// What the rules say for an element-by-element kernel (vec_ratio 12%).
diagnosis::Diagnosis Unvectorised() {
  return CriticalOnly(
      diagnosis::kLowVectorization,
      "The vector unit is busy only 12% of the time: work runs element by element.");
}

// What the rules say for a matmul whose matrix unit is saturated.
diagnosis::Diagnosis CubeBound() {
  return CriticalOnly(diagnosis::kComputeBound,
                      "The matrix unit is busy 92% of the time: the kernel is compute-bound.");
}

const SkillVerdict* VerdictOf(const std::vector<SkillVerdict>& verdicts, const std::string& name) {
  for (const SkillVerdict& v : verdicts) {
    if (v.match.skill->name == name) return &v;
  }
  return nullptr;
}

bool Picked(const std::vector<SkillMatch>& matches, const std::string& name) {
  return std::any_of(matches.begin(), matches.end(),
                     [&](const SkillMatch& m) { return m.skill->name == name; });
}

std::string PickedNames(const std::vector<SkillMatch>& matches) {
  std::string out;
  for (const SkillMatch& m : matches) out += m.skill->name + " (" + m.why + ")\n";
  return out;
}

class SkillPackTest : public ::testing::Test {
 protected:
  void SetUp() override { library_ = SkillLibrary::Load({kPackRoot}, &warnings_); }

  std::vector<std::string> warnings_;
  SkillLibrary library_;
};

// ---------------------------------------------------------------------------------------------
// Loading

TEST_F(SkillPackTest, LoadsEveryWellFormedSkillAtAnyDepth) {
  std::set<std::string> names;
  for (const Skill& s : library_.skills()) names.insert(s.name);
  EXPECT_EQ(names,
            (std::set<std::string>{"branchless-select", "cube-matmul-tiling", "cuda-warp-shuffle",
                                   "double-buffer-pipeline", "elementwise-vectorise-cn",
                                   "layout-nc1hwc0", "operator-fusion-cn"}));
  ASSERT_EQ(library_.report().directories.size(), 1u);
  EXPECT_EQ(library_.report().directories[0].found, 9);  // hidden and node_modules not entered
  EXPECT_EQ(library_.report().directories[0].loaded, 7);
  EXPECT_EQ(library_.Find("hidden-draft"), nullptr);
  EXPECT_EQ(library_.Find("from-node-modules"), nullptr);
  EXPECT_TRUE(Contains(library_.Find("cube-matmul-tiling")->description, "矩阵乘"));
}

TEST_F(SkillPackTest, ReportsTheMalformedSkillWithItsPathAndReason) {
  const LoadReport& report = library_.report();
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0].path, kPackRoot + "/skills/broken-front-matter/SKILL.md");
  EXPECT_FALSE(report.skipped[0].reason.empty());
  ASSERT_EQ(warnings_.size(), 2u) << ::testing::PrintToString(warnings_);
  EXPECT_TRUE(Contains(warnings_[0], "broken-front-matter/SKILL.md")) << warnings_[0];
}

TEST_F(SkillPackTest, ReportsBothPathsOfADuplicateNameAndKeepsTheFirst) {
  const LoadReport& report = library_.report();
  ASSERT_EQ(report.duplicates.size(), 1u);
  const LoadReport::Duplicate& d = report.duplicates[0];
  EXPECT_EQ(d.name, "operator-fusion-cn");
  EXPECT_EQ(d.kept, kPackRoot + "/plugins/ascend-ops/skills/fusion-chain");
  EXPECT_EQ(d.dropped, kPackRoot + "/skills/fusion-chain-legacy");
  EXPECT_FALSE(d.override_across_directories);
  EXPECT_EQ(library_.Find("operator-fusion-cn")->directory, d.kept);
  EXPECT_TRUE(Contains(warnings_[1], d.kept) && Contains(warnings_[1], d.dropped)) << warnings_[1];
  std::string rendered;
  for (const std::string& line : report.Render()) rendered += line + "\n";
  EXPECT_TRUE(Contains(rendered, "loaded 7 of 9")) << rendered;
  EXPECT_TRUE(Contains(rendered, "skipped " + kPackRoot)) << rendered;
}

TEST_F(SkillPackTest, SideFilesAreListedAndOnlyTheOnesTheBodyNamesAreLoaded) {
  const Skill* skill = library_.Find("cube-matmul-tiling");
  ASSERT_NE(skill, nullptr);
  std::vector<std::string> assets, loaded;
  for (const SkillAsset& a : skill->assets) assets.push_back(a.path);
  for (const SkillFile& f : skill->references) loaded.push_back(f.name);
  EXPECT_EQ(assets,
            (std::vector<std::string>{"references/background.md", "references/tiling-math.md",
                                      "scripts/gen_tiles.py", "templates/matmul_tile.cpp",
                                      "templates/unused_layout.cpp"}));
  // As agent-skill runtimes read a skill: only what the body names (background.md is short
  // but unnamed: listed, never offered to the prompt).
  EXPECT_EQ(loaded, (std::vector<std::string>{"references/tiling-math.md",
                                              "templates/matmul_tile.cpp"}));
  for (const SkillAsset& a : skill->assets) {
    const bool named =
        a.path == "references/tiling-math.md" || a.path == "templates/matmul_tile.cpp";
    EXPECT_EQ(a.named_in_body, named) << a.path;
    EXPECT_GT(a.bytes, 0u) << a.path;
  }
}

TEST(SkillPackWalkTest, SymlinkLoopsEndAndASingleSkillFolderLoads) {
  auto dir = TempDir::Create("cannbot-pack-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  fs::create_directories(dir->File("pack/plugins/p/skills/one"));
  ASSERT_TRUE(WriteFile(dir->File("pack/plugins/p/skills/one/SKILL.md"),
                        "---\nname: one\ndescription: A skill.\n---\nBody.\n")
                  .ok());
  fs::create_directory_symlink(dir->File("pack"), dir->File("pack/plugins/p/loop"));
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->File("pack")}, &warnings);
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  ASSERT_EQ(library.skills().size(), 1u);
  EXPECT_EQ(library.report().directories[0].found, 1);

  SkillLibrary single = SkillLibrary::Load({dir->File("pack/plugins/p/skills/one")}, &warnings);
  ASSERT_EQ(single.skills().size(), 1u);
  EXPECT_EQ(single.skills()[0].name, "one");
}

TEST(SkillPackWalkTest, AnOverrideAcrossDirectoriesIsReportedButIsNoWarning) {
  auto dir = TempDir::Create("cannbot-pack-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  fs::create_directories(dir->File("team/vectorize-simd"));
  ASSERT_TRUE(WriteFile(dir->File("team/vectorize-simd/SKILL.md"),
                        "---\nname: vectorize-simd\ndescription: Ours.\n---\nBody.\n")
                  .ok());
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({dir->File("team"), kBuiltInSkills}, &warnings);
  EXPECT_TRUE(warnings.empty()) << ::testing::PrintToString(warnings);
  ASSERT_EQ(library.report().duplicates.size(), 1u);
  EXPECT_TRUE(library.report().duplicates[0].override_across_directories);
  EXPECT_EQ(library.Find("vectorize-simd")->description, "Ours.");
}

// ---------------------------------------------------------------------------------------------
// Selection in any language

TEST_F(SkillPackTest, ChineseVectorisationSkillIsPickedForAnUnvectorisedElementwiseKernel) {
  for (const std::string target : {"cpu", "ascendc"}) {
    auto matches = library_.Select(Unvectorised(), "swish", target);
    ASSERT_TRUE(Picked(matches, "elementwise-vectorise-cn")) << target << "\n"
                                                             << PickedNames(matches);
    const auto verdicts = library_.Explain(Unvectorised(), "swish", target);
    const SkillVerdict* v = VerdictOf(verdicts, "elementwise-vectorise-cn");
    EXPECT_TRUE(Contains(v->match.why, "向量化")) << v->match.why;
    EXPECT_TRUE(Contains(v->match.why, "low_vectorization (critical)")) << v->match.why;
    EXPECT_TRUE(Contains(v->match.why, "op family")) << v->match.why;
    EXPECT_EQ(v->method, "text");
  }
  // Not for a diagnosis it has nothing to say about.
  EXPECT_FALSE(Picked(library_.Select(CriticalOnly(diagnosis::kLayoutMismatch, ""), "swish", "cpu"),
                      "elementwise-vectorise-cn"));
}

TEST_F(SkillPackTest, CubeTilingSkillIsPickedForACubeBoundMatmulOnly) {
  auto matches = library_.Select(CubeBound(), "matmul", "ascendc");
  ASSERT_TRUE(Picked(matches, "cube-matmul-tiling")) << PickedNames(matches);
  EXPECT_EQ(matches[0].skill->name, "cube-matmul-tiling") << PickedNames(matches);
  // Written for Ascend: not for the CPU. About matmul: not for an elementwise op.
  auto cpu = library_.Explain(CubeBound(), "matmul", "cpu");
  EXPECT_FALSE(VerdictOf(cpu, "cube-matmul-tiling")->selected);
  EXPECT_TRUE(Contains(VerdictOf(cpu, "cube-matmul-tiling")->match.why, "written for ascendc"));
  auto add = library_.Explain(CubeBound(), "add", "ascendc");
  EXPECT_FALSE(VerdictOf(add, "cube-matmul-tiling")->selected);
  EXPECT_TRUE(Contains(VerdictOf(add, "cube-matmul-tiling")->match.why, "about matmul"));
}

TEST_F(SkillPackTest, ChineseDoubleBufferSkillAnswersSerializedPipelines) {
  diagnosis::Diagnosis d;
  d.findings.push_back(PackFinding(diagnosis::kSerializedPipelines, Severity::kWarning,
                                   "Copy-in and compute never overlap."));
  auto matches = library_.Select(d, "add", "ascendc");
  EXPECT_TRUE(Picked(matches, "double-buffer-pipeline")) << PickedNames(matches);
}

TEST_F(SkillPackTest, ASkillForAnotherTargetIsNeverPicked) {
  diagnosis::Diagnosis everything;
  for (const char* b :
       {diagnosis::kMemoryBound, diagnosis::kCacheMisses, diagnosis::kLowVectorization,
        diagnosis::kControlFlow, diagnosis::kLayoutMismatch, diagnosis::kLatencyBound,
        diagnosis::kCoreImbalance, diagnosis::kSerializedPipelines, diagnosis::kComputeBound}) {
    everything.findings.push_back(PackFinding(b, Severity::kCritical, "vectorise with CUDA warps"));
  }
  for (const std::string op : {"add", "swish", "softmax", "matmul", "conv2d"}) {
    for (const std::string target : {"cpu", "ascendc"}) {
      auto matches = library_.Select(everything, op, target);
      EXPECT_FALSE(Picked(matches, "cuda-warp-shuffle")) << op << " " << target;
      if (target == "cpu") {
        EXPECT_FALSE(Picked(matches, "cube-matmul-tiling")) << op;
        EXPECT_FALSE(Picked(matches, "layout-nc1hwc0")) << op;
      }
    }
  }
  auto verdicts = library_.Explain(everything, "add", "cpu");
  EXPECT_TRUE(Contains(VerdictOf(verdicts, "cuda-warp-shuffle")->match.why, "cuda"));
}

TEST_F(SkillPackTest, ExplainNamesEveryScoreAndReason) {
  const auto verdicts = library_.Explain(Unvectorised(), "swish", "cpu");
  const std::string text = RenderExplanation(verdicts);
  EXPECT_TRUE(Contains(text, "score")) << text;
  for (const Skill& s : library_.skills()) EXPECT_TRUE(Contains(text, s.name)) << text;
  const SkillVerdict* v = VerdictOf(verdicts, "elementwise-vectorise-cn");
  ASSERT_TRUE(v->selected);
  EXPECT_GT(v->match.score, 300);
  EXPECT_LT(v->match.score, 1000);
  EXPECT_TRUE(Contains(text, std::to_string(static_cast<int>(v->match.score)))) << text;
  EXPECT_TRUE(Contains(text, "declared targets [ascendc] exclude cpu")) << text;
}

TEST(SkillPackBuiltInTest, BuiltInMetadataSkillsStillRankFirst) {
  std::vector<std::string> warnings;
  SkillLibrary library = SkillLibrary::Load({kPackRoot, kBuiltInSkills}, &warnings);
  auto matches = library.Select(Unvectorised(), "swish", "cpu");
  ASSERT_TRUE(Picked(matches, "vectorize-simd")) << PickedNames(matches);
  ASSERT_TRUE(Picked(matches, "elementwise-vectorise-cn")) << PickedNames(matches);
  // Scores only fall: every metadata match (1000 and up) comes before every text match.
  for (size_t i = 1; i < matches.size(); ++i) {
    EXPECT_GE(matches[i - 1].score, matches[i].score) << PickedNames(matches);
  }
  EXPECT_GE(matches[0].score, 1000);
  EXPECT_LT(matches.back().score, 1000);
}

// ---------------------------------------------------------------------------------------------
// Glossary

TEST(SkillGlossaryTest, CjkRunsBecomeBigramsAndAsciiWordsStay) {
  const glossary::Terms t = glossary::Tokenize("Cube 单元上矩阵乘法，AVX-512");
  EXPECT_TRUE(t.words.count("cube"));
  EXPECT_TRUE(t.words.count("avx"));
  EXPECT_TRUE(t.bigrams.count("矩阵"));
  EXPECT_TRUE(t.bigrams.count("乘法"));
  EXPECT_FALSE(t.bigrams.count("，矩"));  // full-width punctuation ends a run
  EXPECT_TRUE(glossary::Mentions(t, "矩阵乘"));
  EXPECT_TRUE(glossary::Mentions(t, "avx*"));
  EXPECT_TRUE(glossary::Mentions(t, "AVX-512"));
  EXPECT_FALSE(glossary::Mentions(t, "双缓冲"));
  EXPECT_TRUE(
      glossary::Mentions(glossary::Tokenize("double-buffering the tiles"), "double buffer*"));
  EXPECT_FALSE(glossary::Mentions(glossary::Tokenize("tiles"), "tile"));
}

TEST(SkillGlossaryTest, OpFamiliesAndTargetWords) {
  EXPECT_EQ(glossary::OpFamily("swish"), "elementwise");
  EXPECT_EQ(glossary::OpFamily("matmul"), "matmul");
  EXPECT_EQ(glossary::OpFamily("my_conv3d"), "convolution");
  EXPECT_EQ(glossary::OpFamily("mystery"), "");
  std::string hit;
  EXPECT_EQ(glossary::TargetsNamed(glossary::Tokenize("昇腾 AI Core 上的算子"), &hit),
            (std::set<std::string>{"ascendc"}));
  hit.clear();
  EXPECT_EQ(glossary::TargetsNamed(glossary::Tokenize("a portable loop"), &hit),
            std::set<std::string>{});
}

}  // namespace
}  // namespace cannbot::skills
