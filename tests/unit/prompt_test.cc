// Prompt templates and rendering (prompt/prompt.h): placeholders, loading prompts/, what the
// optimize and repair prompts carry, and the token budget for skills.
#include "cannbot/prompt/prompt.h"
#include "builtin_ops.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cannbot/ops/registry.h"
#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot::prompt {
namespace {

using cannbot::test::Contains;

const std::string kPromptsDir = std::string(CANNBOT_SOURCE_DIR) + "/prompts";

// ---------------------------------------------------------------------------------------------
// RenderTemplate

TEST(RenderTemplateTest, ReplacesPlaceholdersWithAndWithoutInnerSpaces) {
  auto out = RenderTemplate("op {{op_name}} on {{ target }}, again {{op_name}}; {{  kernel_source}}.",
                            {{"op_name", "swish"}, {"target", "cpu"}, {"kernel_source", "K"}},
                            "t.md");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "op swish on cpu, again swish; K.");
}

TEST(RenderTemplateTest, ValuesAreInsertedVerbatimAndNotExpandedAgain) {
  // Kernel code may contain brace pairs that look like placeholders.
  const std::string code = "float a[1][1] = {{x}}; // {{op_name}}";
  auto out = RenderTemplate("[{{kernel_source}}] {{op_name}}",
                            {{"kernel_source", code}, {"op_name", "relu"}}, "t.md");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "[" + code + "] relu");
}

TEST(RenderTemplateTest, TextWithoutPlaceholdersIsUnchanged) {
  auto out = RenderTemplate("no placeholders { here } {{ }}", {}, "t.md");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "no placeholders { here } {{ }}");
}

TEST(RenderTemplateTest, MissingValueFailsNamingPlaceholderAndTemplate) {
  auto out = RenderTemplate("{{op_name}} and {{feedback}}", {{"op_name", "swish"}}, "repair.md");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(out.status().message(), "feedback")) << out.status().message();
  EXPECT_TRUE(Contains(out.status().message(), "repair.md")) << out.status().message();
}

TEST(RenderTemplateTest, UnknownNameFailsNamingPlaceholderAndTemplate) {
  // Unknown even when a value is supplied: the vocabulary is fixed.
  auto out = RenderTemplate("{{op_name}} {{kernel_sorce}}",
                            {{"op_name", "swish"}, {"kernel_sorce", "x"}}, "optimize.md");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(out.status().message(), "kernel_sorce")) << out.status().message();
  EXPECT_TRUE(Contains(out.status().message(), "optimize.md")) << out.status().message();
}

TEST(RenderTemplateTest, EveryKnownPlaceholderRenders) {
  std::string text;
  std::map<std::string, std::string> values;
  for (const std::string& name : kKnownPlaceholders) {
    text += "{{" + name + "}}|";
    values[name] = "<" + name + ">";
  }
  auto out = RenderTemplate(text, values, "all.md");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (const std::string& name : kKnownPlaceholders) {
    EXPECT_TRUE(Contains(*out, "<" + name + ">|")) << name;
  }
  EXPECT_FALSE(Contains(*out, "{{"));
}

TEST(EstimateTokensTest, BytesOverFourRoundedUp) {
  EXPECT_EQ(EstimateTokens(""), 0);
  EXPECT_EQ(EstimateTokens("a"), 1);
  EXPECT_EQ(EstimateTokens("abcd"), 1);
  EXPECT_EQ(EstimateTokens("abcde"), 2);
  EXPECT_EQ(EstimateTokens(std::string(4000, 'x')), 1000);
}

// ---------------------------------------------------------------------------------------------
// PromptLibrary::Load

TEST(PromptLibraryTest, LoadsTheShippedPrompts) {
  auto library = PromptLibrary::Load(kPromptsDir);
  ASSERT_TRUE(library.ok()) << library.status().ToString();
}

Status WritePrompts(const TempDir& dir, const std::string& system, const std::string& optimize,
                    const std::string& repair) {
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("system.md"), system));
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir.File("optimize.md"), optimize));
  return WriteFile(dir.File("repair.md"), repair);
}

TEST(PromptLibraryTest, UnknownPlaceholderInAFileFailsTheLoadNamingFileAndPlaceholder) {
  auto dir = TempDir::Create("cannbot-prompt-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  ASSERT_TRUE(WritePrompts(*dir, "Target {{target}}", "Kernel {{kernel_sorce}}",
                           "{{failed_code}} {{feedback}}")
                  .ok());
  auto library = PromptLibrary::Load(dir->path());
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(library.status().message(), "kernel_sorce")) << library.status().message();
  EXPECT_TRUE(Contains(library.status().message(), dir->File("optimize.md")))
      << library.status().message();
}

TEST(PromptLibraryTest, MissingFileFailsTheLoadNamingIt) {
  auto dir = TempDir::Create("cannbot-prompt-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  ASSERT_TRUE(WriteFile(dir->File("system.md"), "system").ok());
  ASSERT_TRUE(WriteFile(dir->File("optimize.md"), "optimize").ok());
  auto library = PromptLibrary::Load(dir->path());
  ASSERT_FALSE(library.ok());
  EXPECT_TRUE(Contains(library.status().message(), "repair.md")) << library.status().message();
}

TEST(PromptLibraryTest, ValidCustomDirectoryLoadsAndRenders) {
  auto dir = TempDir::Create("cannbot-prompt-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  ASSERT_TRUE(WritePrompts(*dir, "SYS {{ target }}", "OPT {{op_name}} {{skills}}",
                           "REP {{failed_code}} / {{feedback}}")
                  .ok());
  auto library = PromptLibrary::Load(dir->path());
  ASSERT_TRUE(library.ok()) << library.status().ToString();
  const ops::OpSpec* op = cannbot_test::BuiltInOps().Find("relu");
  ASSERT_NE(op, nullptr);
  diagnosis::Diagnosis diagnosis;
  PromptInputs inputs;
  inputs.op = op;
  inputs.diagnosis = &diagnosis;
  inputs.target = "ascendc";
  auto optimize = library->Optimize(inputs, 1000);
  ASSERT_TRUE(optimize.ok()) << optimize.status().ToString();
  EXPECT_EQ(optimize->system, "SYS ascendc");
  EXPECT_EQ(optimize->user, "OPT relu (no skill applies)");
  auto repair = library->Repair(inputs, "CODE", "FEEDBACK", 1000);
  ASSERT_TRUE(repair.ok()) << repair.status().ToString();
  EXPECT_EQ(repair->user, "REP CODE / FEEDBACK");
  EXPECT_EQ(repair->estimated_tokens,
            EstimateTokens(repair->system) + EstimateTokens(repair->user));
}

// ---------------------------------------------------------------------------------------------
// Optimize / Repair on the shipped prompts

class PromptRenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = PromptLibrary::Load(kPromptsDir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    library_ = std::move(loaded).value();
    op_ = cannbot_test::BuiltInOps().Find("swish");
    ASSERT_NE(op_, nullptr);

    diagnosis::Finding finding;
    finding.bottleneck = diagnosis::kLowVectorization;
    finding.title = "too little vectorisation";
    finding.severity = diagnosis::Severity::kCritical;
    finding.summary = "the vector unit is idle most of the time";
    finding.evidence.push_back({"vector_utilization", 12.5, "%", "<", 50, "domain brief", "", ""});
    finding.remedies.push_back("Vectorise the innermost axis.");
    diagnosis_.findings.push_back(finding);
    diagnosis_.unjudged.push_back("cache misses: no l2_hit_rate in this profile");

    for (const char* name : {"skill-a", "skill-b", "skill-c"}) {
      skills::Skill skill;
      skill.name = name;
      skill.description = std::string("fixture ") + name;
      // ~1000 estimated tokens of body, with a marker to find it in the prompt.
      skill.body = "BODY-OF-" + std::string(name) + "\n" + std::string(4000, 'b') + "\n";
      skills_.push_back(skill);
    }
    // skill-a has a ~500-token reference.
    skills_[0].references.push_back(
        {"references/deep.md", "REFERENCE-OF-skill-a\n" + std::string(2000, 'r') + "\n"});
  }

  PromptInputs Inputs(int skill_count) const {
    PromptInputs inputs;
    inputs.op = op_;
    inputs.kernel_source = kKernel;
    inputs.diagnosis = &diagnosis_;
    inputs.hardware = "AVX-512 machine with 2 cores";
    inputs.target = "cpu";
    for (int i = 0; i < skill_count; ++i) {
      inputs.skills.push_back({&skills_[static_cast<size_t>(i)], 3000.0 - i, "fixture"});
    }
    return inputs;
  }

  // Estimated tokens of a prompt with no skills text at all (what the budget starts from).
  int BaseTokens() const {
    auto bare = library_.Optimize(Inputs(0), 1 << 30);
    EXPECT_TRUE(bare.ok());
    // The rendered prompt says "(no skill applies)" where the skills go; the budget is
    // computed without it, so this slightly overestimates: by at most 5 tokens.
    return bare->estimated_tokens;
  }

  static int SkillCost(const skills::Skill& s) {
    return EstimateTokens("### Skill: " + s.name + "\n" + s.body + "\n");
  }

  static constexpr const char* kKernel =
      "#include <cmath>\n#include <cstdint>\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));  // ORIGINAL\n"
      "}\n";

  PromptLibrary library_;
  const ops::OpSpec* op_ = nullptr;
  diagnosis::Diagnosis diagnosis_;
  std::vector<skills::Skill> skills_;
};

// What must never be trimmed, in every user prompt.
void ExpectContractKernelDiagnosisAndFormat(const RenderedPrompt& p, const char* kernel) {
  EXPECT_TRUE(Contains(p.user, "void swish(const float* x, float* y, int64_t n)")) << p.user;
  EXPECT_TRUE(Contains(p.user, kernel));
  EXPECT_TRUE(Contains(p.user, "low_vectorization: the vector unit is idle most of the time"));
  EXPECT_TRUE(Contains(p.user, "evidence: vector_utilization = 12.5 % (threshold < 50; domain brief)"))
      << p.user;
  EXPECT_TRUE(Contains(p.user, "remedy: Vectorise the innermost axis."));
  EXPECT_TRUE(Contains(p.user, "not judged: cache misses: no l2_hit_rate in this profile"));
  EXPECT_TRUE(Contains(p.user, "exactly one fenced code block")) << p.user;  // output format
  // Every placeholder was filled.
  EXPECT_FALSE(Contains(p.user, "{{"));
  EXPECT_FALSE(Contains(p.system, "{{"));
}

TEST_F(PromptRenderTest, OptimizeCarriesContractKernelDiagnosisAndOutputFormat) {
  auto p = library_.Optimize(Inputs(1), 100000);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ExpectContractKernelDiagnosisAndFormat(*p, kKernel);
  EXPECT_TRUE(Contains(p->user, op_->semantics));
  EXPECT_TRUE(Contains(p->user, "<- timed"));  // the shapes with their tolerances
  EXPECT_TRUE(Contains(p->system, "Target: cpu"));
  EXPECT_TRUE(Contains(p->system, "AVX-512 machine with 2 cores"));
  EXPECT_TRUE(Contains(p->user, "### Skill: skill-a"));
  EXPECT_TRUE(Contains(p->user, "BODY-OF-skill-a"));
  EXPECT_EQ(p->estimated_tokens, EstimateTokens(p->system) + EstimateTokens(p->user));
  const std::string transcript = p->Transcript();
  EXPECT_TRUE(Contains(transcript, p->system));
  EXPECT_TRUE(Contains(transcript, p->user));
}

TEST_F(PromptRenderTest, NoSkillsSaysSo) {
  auto p = library_.Optimize(Inputs(0), 100000);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(Contains(p->user, "(no skill applies)"));
  EXPECT_TRUE(p->skills_used.empty());
  EXPECT_TRUE(p->skills_trimmed.empty());
}

TEST_F(PromptRenderTest, NeedsAnOpAndADiagnosis) {
  PromptInputs inputs = Inputs(0);
  inputs.diagnosis = nullptr;
  EXPECT_FALSE(library_.Optimize(inputs, 1000).ok());
  inputs = Inputs(0);
  inputs.op = nullptr;
  EXPECT_FALSE(library_.Optimize(inputs, 1000).ok());
}

TEST_F(PromptRenderTest, AmpleBudgetTakesEverySkillWithReferencesInRankOrder) {
  auto p = library_.Optimize(Inputs(3), 100000);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->skills_used,
            (std::vector<std::string>{"skill-a (+references)", "skill-b", "skill-c"}));
  EXPECT_TRUE(p->skills_trimmed.empty());
  EXPECT_TRUE(Contains(p->user, "REFERENCE-OF-skill-a"));
  EXPECT_TRUE(Contains(p->user, "#### skill-a/references/deep.md"));
  const size_t a = p->user.find("BODY-OF-skill-a");
  const size_t b = p->user.find("BODY-OF-skill-b");
  const size_t c = p->user.find("BODY-OF-skill-c");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(c, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

TEST_F(PromptRenderTest, BudgetTrimsTheLowestRankedSkillFirst) {
  const int base = BaseTokens();
  const int cost = SkillCost(skills_[0]);
  // Room for two bodies and a little, not for a third body nor for the 500-token reference.
  auto p = library_.Optimize(Inputs(3), base + 2 * cost + 100);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->skills_used, (std::vector<std::string>{"skill-a", "skill-b"}));
  EXPECT_EQ(p->skills_trimmed, (std::vector<std::string>{"skill-c"}));
  EXPECT_TRUE(Contains(p->user, "BODY-OF-skill-a"));
  EXPECT_TRUE(Contains(p->user, "BODY-OF-skill-b"));
  EXPECT_FALSE(Contains(p->user, "BODY-OF-skill-c"));
  EXPECT_FALSE(Contains(p->user, "REFERENCE-OF-skill-a"));
  EXPECT_LE(p->estimated_tokens, base + 2 * cost + 100);
  ExpectContractKernelDiagnosisAndFormat(*p, kKernel);

  // Room for one body only.
  auto one = library_.Optimize(Inputs(3), base + cost + 100);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->skills_used, (std::vector<std::string>{"skill-a"}));
  EXPECT_EQ(one->skills_trimmed, (std::vector<std::string>{"skill-b", "skill-c"}));
}

TEST_F(PromptRenderTest, TheOrderGivenDecidesWhichSkillIsKept) {
  // Same skills, ranked the other way round: now skill-a is the one to go.
  PromptInputs inputs = Inputs(0);
  for (int i = 2; i >= 0; --i) inputs.skills.push_back({&skills_[static_cast<size_t>(i)], 0, ""});
  const int base = BaseTokens();
  auto p = library_.Optimize(inputs, base + 2 * SkillCost(skills_[0]) + 100);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->skills_used, (std::vector<std::string>{"skill-c", "skill-b"}));
  EXPECT_EQ(p->skills_trimmed, (std::vector<std::string>{"skill-a"}));
}

TEST_F(PromptRenderTest, ReferencesOnlyWhenThereIsRoomAfterTheBodies) {
  const int base = BaseTokens();
  const int cost = SkillCost(skills_[0]);
  // Two bodies plus the ~500-token reference fit; a third body (~1000) does not.
  auto p = library_.Optimize(Inputs(3), base + 2 * cost + 600);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->skills_used, (std::vector<std::string>{"skill-a (+references)", "skill-b"}));
  EXPECT_EQ(p->skills_trimmed, (std::vector<std::string>{"skill-c"}));
  EXPECT_TRUE(Contains(p->user, "REFERENCE-OF-skill-a"));

  // All three bodies fit but the reference does not: bodies win over references.
  auto q = library_.Optimize(Inputs(3), base + 3 * cost + 100);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->skills_used, (std::vector<std::string>{"skill-a", "skill-b", "skill-c"}));
  EXPECT_TRUE(q->skills_trimmed.empty());
  EXPECT_FALSE(Contains(q->user, "REFERENCE-OF-skill-a"));
}

TEST_F(PromptRenderTest, TinyBudgetKeepsKernelContractAndDiagnosisIntact) {
  auto p = library_.Optimize(Inputs(3), 10);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->skills_used.empty());
  EXPECT_EQ(p->skills_trimmed, (std::vector<std::string>{"skill-a", "skill-b", "skill-c"}));
  EXPECT_FALSE(Contains(p->user, "BODY-OF-"));
  EXPECT_TRUE(Contains(p->user, "(no skill applies)"));
  ExpectContractKernelDiagnosisAndFormat(*p, kKernel);
  EXPECT_TRUE(Contains(p->user, op_->semantics));
  EXPECT_GT(p->estimated_tokens, 10);  // over budget rather than cut
}

TEST_F(PromptRenderTest, RepairCarriesTheFailedCodeAndTheFeedback) {
  const std::string failed = "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
                             "  y[0] = sigmoid(x[0]);  // FAILED-CANDIDATE\n}\n";
  const std::string feedback =
      "Rejected at the compile layer: candidate.cpp:2:10: error: 'sigmoid' was not declared";
  auto p = library_.Repair(Inputs(1), failed, feedback, 100000);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(Contains(p->user, failed));
  EXPECT_TRUE(Contains(p->user, feedback));
  EXPECT_TRUE(Contains(p->user, "`swish`"));  // the op name in the repair header
  ExpectContractKernelDiagnosisAndFormat(*p, kKernel);  // and the kernel it must beat
  EXPECT_EQ(p->skills_used, (std::vector<std::string>{"skill-a (+references)"}));
}

TEST_F(PromptRenderTest, RepairUnderATinyBudgetStillCarriesCodeAndFeedback) {
  auto p = library_.Repair(Inputs(3), "FAILED-CODE-MARKER", "FEEDBACK-MARKER", 1);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(Contains(p->user, "FAILED-CODE-MARKER"));
  EXPECT_TRUE(Contains(p->user, "FEEDBACK-MARKER"));
  EXPECT_EQ(p->skills_trimmed.size(), 3u);
  ExpectContractKernelDiagnosisAndFormat(*p, kKernel);
}

TEST(DescribeDiagnosisTest, EmptyDiagnosisSaysNoBottleneck) {
  diagnosis::Diagnosis empty;
  EXPECT_TRUE(Contains(DescribeDiagnosis(empty), "No bottleneck was identified"));
}

}  // namespace
}  // namespace cannbot::prompt
