// The CI bot's repository config (ci/repo_config.h) and its plan (ci/plan.h): both file
// forms, defaults, every error naming the file and key, profile templates, and which changed
// files become kernels.
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include "cannbot/ci/plan.h"
#include "cannbot/ci/repo_config.h"
#include "cannbot/util/fs.h"

namespace cannbot::ci {
namespace {

std::string Fixture(const std::string& name) {
  return *ReadFile(std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/ci/" + name);
}

std::string ErrorOf(const std::string& text, const std::string& name = ".cannbot.toml") {
  auto parsed = ParseRepoConfig(text, name, cannbot_test::BuiltInOps());
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(CiRepoConfigTest, ReadsEveryKeyOfTheTomlForm) {
  auto config = ParseRepoConfig(Fixture("cannbot.toml"), ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_FALSE(config->fail_on_broken_kernel);
  EXPECT_DOUBLE_EQ(config->thresholds.min_speedup, 1.10);
  EXPECT_DOUBLE_EQ(config->thresholds.time_budget_seconds, 120);
  EXPECT_EQ(config->thresholds.max_variants, 6);
  EXPECT_EQ(config->thresholds.max_kernels, 2);
  ASSERT_EQ(config->kernels.size(), 2u);
  EXPECT_EQ(config->kernels[0].glob, "ops/add/**/*.cpp");
  EXPECT_EQ(config->kernels[0].op, "add");
  EXPECT_EQ(config->kernels[0].profile, "profiles/{stem}.csv");
  EXPECT_EQ(config->kernels[0].profile_format, profile::Format::kMsprof);
  EXPECT_EQ(config->kernels[0].profile_kernel, "Add");
  EXPECT_EQ(config->kernels[1].profile_format, profile::Format::kAuto);
}

TEST(CiRepoConfigTest, ReadsTheJsonFormWithDefaults) {
  auto config = ParseRepoConfig(Fixture("cannbot.json"), ".cannbot.json", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->fail_on_broken_kernel);
  EXPECT_DOUBLE_EQ(config->thresholds.min_speedup, 1.2);
  EXPECT_EQ(config->thresholds.max_kernels, 10);
  ASSERT_EQ(config->kernels.size(), 1u);
  EXPECT_EQ(config->kernels[0].op, "swish");
}

TEST(CiRepoConfigTest, ARuleNamesTheTargetItsKernelsAreWrittenFor) {
  auto config = ParseRepoConfig("[[kernels]]\nglob = \"ascendc/*.cpp\"\nop = \"add\"\n"
                                "target = \"ascendc\"\n[[kernels]]\nglob = \"*.cpp\"\nop = \"add\"\n",
                                ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_NE(config->kernels[0].target, nullptr);
  EXPECT_EQ(config->kernels[0].target->name(), "ascendc");
  EXPECT_EQ(config->kernels[1].target, nullptr);  // the default target
  EXPECT_NE(ErrorOf("[[kernels]]\nglob = \"a\"\nop = \"add\"\ntarget = \"cuda\"\n")
                .find("field 'kernels[1].target' must be one of: cpu, ascendc (got \"cuda\")"),
            std::string::npos)
      << ErrorOf("[[kernels]]\nglob = \"a\"\nop = \"add\"\ntarget = \"cuda\"\n");
}

TEST(CiRepoConfigTest, ErrorsNameTheFileAndTheKey) {
  EXPECT_NE(ErrorOf("[[kernels]]\nglob = \"a/*.cpp\"\nop = \"addd\"\n").find("unknown op 'addd'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[kernels]]\nglob = \"a/*.cpp\"\nop = \"add\"\nprofle = \"x\"\n")
                .find("unknown setting 'kernels[1].profle'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("[thresholds]\nmin_speedup = \"fast\"\n[[kernels]]\nglob = \"a\"\nop = \"add\"\n")
          .find("'thresholds.min_speedup' has the wrong type"),
      std::string::npos);
  EXPECT_NE(ErrorOf("[thresholds]\nmax_kernels = 0\n[[kernels]]\nglob = \"a\"\nop = \"add\"\n")
                .find("max_kernels must be >= 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[kernels]]\nglob = \"/abs/*.cpp\"\nop = \"add\"\n").find("absolute"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[[kernels]]\nop = \"add\"\n").find("has no glob"), std::string::npos);
  EXPECT_NE(ErrorOf("[[kernels]]\nglob = \"a\"\nop = \"add\"\nprofile_format = \"xls\"\n")
                .find("profile_format"),
            std::string::npos);
  EXPECT_NE(ErrorOf("").find("no [[kernels]] or [[packages]] entries"), std::string::npos);
  EXPECT_NE(ErrorOf("kernels = [").find(".cannbot.toml: not valid TOML"), std::string::npos);
  EXPECT_NE(ErrorOf("{", ".cannbot.json").find(".cannbot.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(ErrorOf("x = 1\n[[kernels]]\nglob = \"a\"\nop = \"add\"\n").rfind(".cannbot.toml", 0),
            0u);
}

TEST(CiRepoConfigTest, ProfileTemplatesTakeThePartsOfTheKernelPath) {
  EXPECT_EQ(ExpandProfilePath("profiles/{stem}.csv", "ops/add/add_v2.cpp"), "profiles/add_v2.csv");
  EXPECT_EQ(ExpandProfilePath("{dir}/{name}.json", "ops/add/add.cpp"), "ops/add/add.cpp.json");
  EXPECT_EQ(ExpandProfilePath("{dir}/prof.csv", "add.cpp"), "prof.csv");
  EXPECT_EQ(ExpandProfilePath("fixed.csv", "ops/add.cpp"), "fixed.csv");
}

TEST(CiPlanTest, OnlyChangedFilesMatchingARuleBecomeKernelsFirstRuleWins) {
  auto config = ParseRepoConfig(Fixture("cannbot.toml"), ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok());
  config->thresholds.max_kernels = 10;
  config->kernels.push_back({"ops/**/*.cpp", "swish", nullptr, "", profile::Format::kAuto, ""});  // never wins for add/relu
  const std::vector<ChangedFile> changed = {{'M', "README.md"},
                                            {'A', "ops/add/v2/add.cpp"},
                                            {'M', "ops/relu/relu.cpp"},
                                            {'M', "ops/swish/swish.cpp"}};
  const std::vector<std::string> head = {"README.md", "ops/add/v2/add.cpp", "ops/relu/relu.cpp",
                                         "ops/swish/swish.cpp", "ops/unchanged/k.cpp"};
  CiPlan plan = PlanKernels(*config, changed, head);
  ASSERT_EQ(plan.jobs.size(), 3u);
  EXPECT_EQ(plan.jobs[0].path, "ops/add/v2/add.cpp");
  EXPECT_EQ(plan.jobs[0].op, "add");
  EXPECT_TRUE(plan.jobs[0].added);
  EXPECT_EQ(plan.jobs[0].profile, "profiles/add.csv");
  EXPECT_EQ(plan.jobs[0].profile_kernel, "Add");
  EXPECT_EQ(plan.jobs[1].op, "relu");
  EXPECT_FALSE(plan.jobs[1].added);
  EXPECT_EQ(plan.jobs[1].profile, "");
  EXPECT_EQ(plan.jobs[2].op, "swish");
  EXPECT_TRUE(plan.warnings.empty());
  EXPECT_TRUE(plan.deferred.empty());
}

TEST(CiPlanTest, AGlobMatchingNothingWarnsAndExtraKernelsAreDeferred) {
  auto config = ParseRepoConfig(Fixture("cannbot.toml"), ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok());
  config->thresholds.max_kernels = 1;
  const std::vector<ChangedFile> changed = {{'M', "ops/add/a.cpp"}, {'M', "ops/add/b.cpp"}};
  CiPlan plan = PlanKernels(*config, changed, {"ops/add/a.cpp", "ops/add/b.cpp"});
  ASSERT_EQ(plan.jobs.size(), 1u);
  EXPECT_EQ(plan.deferred, std::vector<std::string>{"ops/add/b.cpp"});
  ASSERT_EQ(plan.warnings.size(), 1u);
  EXPECT_NE(plan.warnings[0].find("'ops/relu/*.cpp'"), std::string::npos);
  EXPECT_NE(plan.warnings[0].find("matches no file"), std::string::npos);
}

// [[packages]]: a changed source under a matching package's op_host/ or op_kernel/ plans the
// package once (added only while all its changed files are new); kernel rules come first;
// files beside op_host/ and op_kernel/, and non-source files, plan nothing.
TEST(CiPlanTest, ChangedPackageFilesPlanTheirPackageOnce) {
  auto config = ParseRepoConfig(
      "[[kernels]]\nglob = \"ops/add/*.cpp\"\nop = \"add\"\n"
      "[[packages]]\ndir = \"pkgs/*\"\nop = \"add\"\n",
      ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_EQ(config->packages.size(), 1u);
  const std::vector<ChangedFile> changed = {
      {'A', "pkgs/add_custom/op_host/add_custom.cpp"},
      {'M', "pkgs/add_custom/op_kernel/add_custom.cpp"},
      {'M', "pkgs/add_custom/README.md"},
      {'M', "pkgs/sub_custom/op_kernel/CMakeLists.txt"},
      {'A', "pkgs/mul_custom/op_kernel/mul.cpp"},
      {'M', "other/x/op_kernel/x.cpp"},
      {'M', "ops/add/a.cpp"}};
  CiPlan plan = PlanKernels(*config, changed, {"pkgs/add_custom/op_kernel/add_custom.cpp",
                                               "ops/add/a.cpp"});
  ASSERT_EQ(plan.jobs.size(), 3u);
  EXPECT_EQ(plan.jobs[0].path, "ops/add/a.cpp");
  EXPECT_FALSE(plan.jobs[0].package);
  EXPECT_EQ(plan.jobs[1].path, "pkgs/add_custom");
  EXPECT_TRUE(plan.jobs[1].package);
  EXPECT_FALSE(plan.jobs[1].added);  // one of its files was modified
  EXPECT_EQ(plan.jobs[2].path, "pkgs/mul_custom");
  EXPECT_TRUE(plan.jobs[2].added);
  EXPECT_TRUE(plan.warnings.empty());
  EXPECT_EQ(PackageDirOf("a/b/op_kernel/k/x.cpp"), "a/b");
  EXPECT_EQ(PackageDirOf("op_kernel/x.cpp"), "");

  auto bad = ParseRepoConfig("[[packages]]\ndir = \"pkgs/*\"\nop = \"nope\"\n", ".cannbot.toml",
                             cannbot_test::BuiltInOps());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("packages[1]: unknown op 'nope'"), std::string::npos)
      << bad.status().ToString();
  // A project of several operators names the one its rule reviews; the job carries it.
  auto named = ParseRepoConfig("[[packages]]\ndir = \"project\"\nop = \"add\"\n"
                               "operator = \"AddCustom\"\n",
                               ".cannbot.toml", cannbot_test::BuiltInOps());
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->packages[0].operator_name, "AddCustom");
  CiPlan project = PlanKernels(*named, {{'M', "project/op_kernel/add_custom.cpp"}}, {});
  ASSERT_EQ(project.jobs.size(), 1u);
  EXPECT_EQ(project.jobs[0].package_operator, "AddCustom");
  auto neither = ParseRepoConfig("fail_on_broken_kernel = true\n", ".cannbot.toml",
                                 cannbot_test::BuiltInOps());
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.status().message().find("no [[kernels]] or [[packages]]"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::ci
