// The model's pick among the best-scored skills (optimize/skill_pick.h): which skills are
// offered, what the model is shown, and how its answer is read.
#include "cannbot/optimize/skill_pick.h"

#include <gtest/gtest.h>

namespace cannbot::optimize {
namespace {

skills::Skill MakeSkill(const std::string& name, const std::string& description) {
  skills::Skill s;
  s.name = name;
  s.description = description;
  s.body = "BODY-OF-" + name;
  return s;
}

class SkillPickTest : public ::testing::Test {
 protected:
  SkillPickTest()
      : vectorise_(MakeSkill("vectorize-simd", "Vectorise inner loops.")),
        fast_math_(MakeSkill("fast-math-approximations", "Polynomial exp and erf.")),
        tiling_(MakeSkill("memory-tiling", "双缓冲 and tiling for bandwidth-bound kernels.")),
        other_(MakeSkill("vectorize-simd-extra", "Another one.")) {
    candidates_.resize(3);
    candidates_[0].skill = &vectorise_, candidates_[0].score = 2075;
    candidates_[1].skill = &fast_math_, candidates_[1].score = 2080;
    candidates_[2].skill = &tiling_, candidates_[2].score = 3080;
  }
  std::vector<std::string> Names(const std::vector<skills::SkillMatch>& matches) {
    std::vector<std::string> names;
    for (const auto& m : matches) names.push_back(m.skill->name);
    return names;
  }
  skills::Skill vectorise_, fast_math_, tiling_, other_;
  std::vector<skills::SkillMatch> candidates_;
};

TEST_F(SkillPickTest, CandidatesAreTheScoredSkillsBestFirst) {
  // Built member by member: GCC 12 at -O3 warns (maybe-uninitialized) on the braced form.
  std::vector<skills::SkillVerdict> verdicts(4);
  verdicts[0].match = candidates_[0];
  verdicts[1].match.skill = &other_;  // score 0: the rules excluded it
  verdicts[1].match.why = "declared targets exclude cpu";
  verdicts[2].match = candidates_[1];
  verdicts[3].match = candidates_[2];
  EXPECT_EQ(Names(PickCandidates(verdicts, 6)),
            (std::vector<std::string>{"memory-tiling", "fast-math-approximations",
                                      "vectorize-simd"}));
  EXPECT_EQ(Names(PickCandidates(verdicts, 2)),
            (std::vector<std::string>{"memory-tiling", "fast-math-approximations"}));
}

TEST_F(SkillPickTest, TheModelSeesNamesAndDescriptionsNotBodies) {
  diagnosis::Diagnosis d;
  diagnosis::Finding f;
  f.bottleneck = "low_vectorization";
  f.title = "too little vectorisation";
  f.summary = "The loop at line 9 is not vectorised: the call to expf blocks it.";
  d.findings.push_back(f);
  const auto messages = PickMessages(candidates_, d, "swish", 2);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].content.find("PICK:"), std::string::npos);
  EXPECT_NE(messages[0].content.find("at most 2"), std::string::npos);
  EXPECT_NE(messages[1].content.find("Op: swish"), std::string::npos);
  EXPECT_NE(messages[1].content.find("the call to expf blocks it"), std::string::npos);
  EXPECT_NE(messages[1].content.find("- memory-tiling: 双缓冲 and tiling"), std::string::npos);
  EXPECT_EQ(messages[1].content.find("BODY-OF-"), std::string::npos);
}

TEST_F(SkillPickTest, ThePickLineNamesWholeCandidateNamesOnly) {
  // Candidates' order, unknown and partial names ignored, at most max_picks.
  EXPECT_EQ(Names(ParsePick("PICK: fast-math-approximations, vectorize-simd-extra, nope\n",
                            candidates_, 3)),
            (std::vector<std::string>{"fast-math-approximations"}));
  EXPECT_EQ(Names(ParsePick("I think vectorize-simd helps.\nPICK: memory-tiling, vectorize-simd",
                            candidates_, 1)),
            (std::vector<std::string>{"vectorize-simd"}));
  // The last PICK line wins; without one the whole answer is read.
  EXPECT_EQ(Names(ParsePick("PICK: memory-tiling\nOn reflection:\nPICK: fast-math-approximations",
                            candidates_, 3)),
            (std::vector<std::string>{"fast-math-approximations"}));
  EXPECT_EQ(Names(ParsePick("Use `memory-tiling`.", candidates_, 3)),
            (std::vector<std::string>{"memory-tiling"}));
  EXPECT_TRUE(ParsePick("PICK: none of these", candidates_, 3).empty());
  EXPECT_TRUE(ParsePick("", candidates_, 3).empty());
}

}  // namespace
}  // namespace cannbot::optimize
