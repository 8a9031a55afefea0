// Every profile fixture through import + diagnosis: the top finding and its evidence, what
// else must (not) be found, which kernel is picked and exactly which bottlenecks could not be
// judged, as listed in tests/fixtures/profiles/EXPECTED.tsv.
// (tests/integration/diagnose_cli_test.cc checks the same table through the binary.)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/profile/import.h"

namespace cannbot::diagnosis {
namespace {

struct Expectation {
  std::string path;
  std::vector<std::string> args;
  std::string top;
  std::vector<std::string> also;
  std::vector<std::string> never;
  std::string kernel;
  std::string top_evidence;             // metric of the top finding's first evidence
  std::vector<std::string> not_judged;  // exactly these bottlenecks could not be judged
};

std::vector<std::string> SplitOn(const std::string& text, char sep) {
  std::vector<std::string> parts;
  if (text == "-") return parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::vector<Expectation> LoadExpectations() {
  std::ifstream in(std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/profiles/EXPECTED.tsv");
  std::vector<Expectation> all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto cols = SplitOn(line, '\t');
    if (cols.size() != 8) {
      ADD_FAILURE() << "bad EXPECTED.tsv line: " << line;
      continue;
    }
    all.push_back({cols[0], SplitOn(cols[1], ' '), cols[2], SplitOn(cols[3], ','),
                   SplitOn(cols[4], ','), cols[5], cols[6], SplitOn(cols[7], ',')});
  }
  return all;
}

TEST(DiagnosisFixturesTest, EveryFixtureGetsItsTopFinding) {
  const auto expectations = LoadExpectations();
  ASSERT_GE(expectations.size(), 35u);
  for (const Expectation& e : expectations) {
    SCOPED_TRACE(e.path);
    profile::ImportOptions options;
    std::string kernel_name;
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      if (e.args[i] == "--device") options.device = e.args[i + 1];
      if (e.args[i] == "--kernel") kernel_name = e.args[i + 1];
    }
    auto p = profile::ImportProfileFile(
        std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/profiles/" + e.path, options);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    std::string why;
    auto kernel = p->Pick(kernel_name, &why);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    EXPECT_EQ((*kernel)->name, e.kernel);
    Diagnosis d = Diagnose(*p, **kernel);
    if (e.top == "none") {
      EXPECT_TRUE(d.findings.empty()) << d.RenderText();
      EXPECT_EQ(e.top_evidence, "-");
      // Never "every rule passed" when nothing, or hardly anything, could be judged.
      EXPECT_EQ(d.RenderText().find("every rule that could be judged passed"), std::string::npos);
      EXPECT_GT(d.coverage.rules_not_judged, 0) << d.RenderText();
    } else {
      ASSERT_NE(d.Top(), nullptr) << d.RenderText();
      EXPECT_EQ(d.Top()->bottleneck, e.top) << d.RenderText();
      ASSERT_FALSE(d.Top()->evidence.empty());
      EXPECT_EQ(d.Top()->evidence[0].metric, e.top_evidence) << d.RenderText();
    }
    EXPECT_EQ(d.coverage.not_judged, e.not_judged) << d.RenderText();
    EXPECT_EQ(d.coverage.not_judged.size(), d.unjudged.size());
    for (const std::string& id : e.also) EXPECT_TRUE(d.Has(id)) << id << "\n" << d.RenderText();
    for (const std::string& id : e.never) EXPECT_FALSE(d.Has(id)) << id << "\n" << d.RenderText();
    for (const Finding& f : d.findings) {
      EXPECT_FALSE(f.evidence.empty());
      EXPECT_FALSE(f.remedies.empty());
      EXPECT_FALSE(f.summary.empty());
      EXPECT_EQ(f.summary.find('{'), std::string::npos) << f.summary;  // template filled
    }
  }
}

}  // namespace
}  // namespace cannbot::diagnosis
