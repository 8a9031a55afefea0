// `cannbot diagnose` as users run it: every profile fixture's top finding through the binary,
// the readable table, the JSON shape, bad input (exit 2, one sentence naming file and line),
// and self-profiling a kernel source.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cannbot/util/subprocess.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

using testing::SourcePath;

struct DiagnoseCli {
  int exit_code = -1;
  std::string output;  // stdout and stderr interleaved
};

DiagnoseCli Diagnose(std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "diagnose"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  auto run = RunCommand(options, std::chrono::seconds(120), 4u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

std::string Profile(const std::string& relative) {
  return SourcePath("tests/fixtures/profiles/" + relative);
}

nlohmann::json ParseDiagnoseJson(const std::string& output) {
  auto brace = output.find('{');
  if (brace == std::string::npos) return nullptr;
  return nlohmann::json::parse(output.substr(brace), nullptr, false);
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  if (text == "-") return parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, sep)) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

TEST(DiagnoseCliTest, EveryFixtureGetsItsTopFinding) {
  std::ifstream in(Profile("EXPECTED.tsv"));
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto cols = Split(line, '\t');
    ASSERT_EQ(cols.size(), 8u) << line;
    SCOPED_TRACE(cols[0] + " " + cols[1]);
    std::vector<std::string> args = {Profile(cols[0]), "--json"};
    for (const std::string& a : Split(cols[1], ' ')) args.push_back(a);
    DiagnoseCli cli = Diagnose(args);
    ASSERT_EQ(cli.exit_code, 0) << cli.output;
    nlohmann::json out = ParseDiagnoseJson(cli.output);
    ASSERT_TRUE(out.is_object()) << cli.output;
    ASSERT_TRUE(out["profile"]["kernels"].is_array());
    const nlohmann::json& d = out["diagnosis"];
    EXPECT_EQ(d["top"], cols[2] == "none" ? nlohmann::json(nullptr) : nlohmann::json(cols[2]));
    EXPECT_EQ(d["kernel"], cols[5]);
    std::vector<std::string> found;
    for (const auto& f : d["findings"]) found.push_back(f["bottleneck"]);
    for (const std::string& id : Split(cols[3], ',')) {
      EXPECT_NE(std::find(found.begin(), found.end(), id), found.end()) << id;
    }
    for (const std::string& id : Split(cols[4], ',')) {
      EXPECT_EQ(std::find(found.begin(), found.end(), id), found.end()) << id;
    }
    const nlohmann::json top_evidence =
        d["findings"].empty() ? nlohmann::json("-") : d["findings"][0]["evidence"][0]["metric"];
    EXPECT_EQ(top_evidence, cols[6]);
    std::vector<std::string> not_judged;
    for (const auto& id : d["coverage"]["not_judged"]) not_judged.push_back(id);
    EXPECT_EQ(not_judged, Split(cols[7], ','));
    ++checked;
  }
  EXPECT_GE(checked, 35);
}

TEST(DiagnoseCliTest, TheTableSaysWhichKernelWhyAndWhatToDo) {
  DiagnoseCli cli = Diagnose({Profile("msprof/op_summary_a2_depthwise.csv")});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  for (const char* text : {
           "(msprof op_summary CSV, detected)",
           "Kernel: aclnnConvolution_DepthwiseConv2D_DepthwiseConv2D",
           "Picked: the most total time of 5 kernels",
           "communication tasks not counted",
           "1. [CRITICAL] memory-bandwidth bound (memory_bound)",
           "mte2_over_compute = 3.12x [mte2_ratio 62.5% / max(vec_ratio 20.1%)] (> 1.00x; "
           "vendor docs)",
           "Remedies:",
           "Double-buffer",
           "Not judged (missing metrics):",
           "cache misses / bank conflicts: needs l2_hit_rate",
           // No --device: the other vector kernels' widest launch bounds the core count.
           "Assumed: core count: at least 40 vector cores, from the largest block dim among this "
           "profile's vector-core kernels (aclnnAdd_AddAiCore_Add: 40)",
       }) {
    EXPECT_NE(cli.output.find(text), std::string::npos) << text << "\n" << cli.output;
  }
}

TEST(DiagnoseCliTest, AProfileWithoutTheRulesMetricsSaysNothingCouldBeJudged) {
  DiagnoseCli cli = Diagnose({Profile("perf/stat_x_vm.csv")});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_EQ(cli.output.find("every rule that could be judged passed"), std::string::npos)
      << cli.output;
  for (const char* text : {
           "Nothing could be judged: this profile has none of the metrics the rules need",
           "- no cube/vector pipeline ratios in this profile (mac_ratio, vec_ratio, "
           "scalar_ratio, mte1_ratio, mte2_ratio, mte3_ratio): 14 pipeline rules not judged",
           "- no branch counters in this profile (branch_miss_rate): 1 branch rule not judged",
           "counters not available: cycles <not supported>",
       }) {
    EXPECT_NE(cli.output.find(text), std::string::npos) << text << "\n" << cli.output;
  }
  nlohmann::json json =
      ParseDiagnoseJson(Diagnose({Profile("perf/stat_x_vm.csv"), "--json"}).output);
  const nlohmann::json& coverage = json["diagnosis"]["coverage"];
  EXPECT_EQ(coverage["rules_judged"], 0);
  EXPECT_GT(coverage["rules_not_judged"].get<int>(), 30);
  EXPECT_EQ(coverage["not_judged"].size(), json["diagnosis"]["unjudged"].size());

  DiagnoseCli statistic = Diagnose({Profile("msprof/op_statistic_0_1.csv")});
  // The layout-transform share, and the cube rules (which do not apply to a vector kernel).
  EXPECT_NE(statistic.output.find("No bottleneck found by the 3 rules that could be judged; 31 "
                                  "could not be (below)."),
            std::string::npos)
      << statistic.output;
}

TEST(DiagnoseCliTest, ACubeOnlyMatmulGetsACubeFindingNotAVectorOne) {
  DiagnoseCli cli = Diagnose({Profile("msprof/op_summary_a2_matmul_cube.csv")});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  for (const char* text : {
           "1. [CRITICAL] cube unit starved (L1/L0 feeding) (cube_starved)",
           "cube_feed_over_mac = 2.18x [mte1_ratio 61.2% / mac_ratio 28.1%] (> 1.00x; cannbot "
           "heuristic)",
           "cube_kernel = 1 [the cube busier than the vector unit: mac_ratio 28.1% >= vec_ratio "
           "3.1%]",
           "L0A/L0B",
           "- cache misses / bank conflicts: needs l2_hit_rate",
       }) {
    EXPECT_NE(cli.output.find(text), std::string::npos) << text << "\n" << cli.output;
  }
  EXPECT_EQ(cli.output.find("low_vectorization"), std::string::npos) << cli.output;
}

TEST(DiagnoseCliTest, ANarrowLaunchIsFlaggedWithoutDeviceAndTheAssumptionIsPrinted) {
  DiagnoseCli cli = Diagnose({Profile("msprof/op_summary_a2_narrow_launch.csv")});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  for (const char* text : {
           "Assumed: core count: at least 40 vector cores, from the largest block dim among this "
           "profile's vector-core kernels (aclnnAdd_AddAiCore_Add: 40)",
           "1. [WARNING] core-count imbalance (core_imbalance)",
           "idle_core_share = 95.0% [1 - block_dim 2 / core_count_at_least 40] (>= 50.0%; "
           "cannbot heuristic)",
       }) {
    EXPECT_NE(cli.output.find(text), std::string::npos) << text << "\n" << cli.output;
  }
  // Named, the device gives the exact count, and the output says that instead.
  DiagnoseCli named =
      Diagnose({Profile("msprof/op_summary_a2_narrow_launch.csv"), "--device", "Ascend910B3"});
  EXPECT_NE(named.output.find("Assumed: core count: 40 vector cores of Ascend910B3 (the "
                              "profile's device)"),
            std::string::npos)
      << named.output;
  EXPECT_NE(named.output.find("block_dim = 2 (not a multiple of core_count = 40; vendor advisor)"),
            std::string::npos)
      << named.output;
}

TEST(DiagnoseCliTest, BadInputExitsTwoWithOneSentenceNamingFileAndLine) {
  struct Case {
    const char* fixture;
    const char* where;  // what the message must contain besides the file
  } cases[] = {
      {"bad/empty.csv", "empty.csv: the file is empty"},
      {"bad/garbage.bin", "garbage.bin: not a profile: it looks binary"},
      {"bad/missing_duration.csv", "missing_duration.csv:1: "},
      {"bad/truncated_timeline.json", "truncated_timeline.json:4: "},
      {"bad/unknown_format.txt", "unknown_format.txt:1: "},
      {"bad/mixed_formats.csv", "at line 4"},
  };
  for (const Case& c : cases) {
    DiagnoseCli cli = Diagnose({Profile(c.fixture)});
    EXPECT_EQ(cli.exit_code, 2) << c.fixture << "\n" << cli.output;
    EXPECT_EQ(cli.output.rfind("cannbot: error: ", 0), 0u) << cli.output;
    EXPECT_NE(cli.output.find(c.where), std::string::npos) << cli.output;
    EXPECT_EQ(std::count(cli.output.begin(), cli.output.end(), '\n'), 1) << cli.output;
  }
  DiagnoseCli json = Diagnose({Profile("bad/empty.csv"), "--json"});
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(ParseDiagnoseJson(json.output)["error"]["code"], "invalid_argument") << json.output;
}

TEST(DiagnoseCliTest, UsageErrors) {
  EXPECT_EQ(Diagnose({}).exit_code, 2);
  EXPECT_EQ(Diagnose({Profile("ncu/raw.csv"), "--op", "swish"}).exit_code, 2);
  EXPECT_EQ(Diagnose({"--op", "swish"}).exit_code, 2);
  EXPECT_EQ(Diagnose({Profile("ncu/raw.csv"), "--format", "xls"}).exit_code, 2);
  DiagnoseCli forced = Diagnose({Profile("msprof/op_summary_310p_matmul.csv"), "--format", "ncu"});
  EXPECT_EQ(forced.exit_code, 2);
  EXPECT_NE(forced.output.find("op_summary_310p_matmul.csv:1: not an Nsight Compute CSV"),
            std::string::npos) << forced.output;
  DiagnoseCli unknown = Diagnose({Profile("ncu/raw.csv"), "--kernel", "conv"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("no kernel named 'conv'"), std::string::npos) << unknown.output;
  DiagnoseCli missing = Diagnose({"/nonexistent/profile.csv"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("/nonexistent/profile.csv: no such file"), std::string::npos);
}

TEST(DiagnoseCliTest, SelfProfilesAKernelSourceWithoutAProfile) {
  DiagnoseCli cli = Diagnose({"--op", "swish", "--source", SourcePath("examples/swish/naive.cpp"),
                      "--json",
                      "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db"});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  nlohmann::json out = ParseDiagnoseJson(cli.output);
  ASSERT_TRUE(out.is_object()) << cli.output;
  EXPECT_EQ(out["profile"]["source_tool"], "self-profile");
  EXPECT_EQ(out["diagnosis"]["kernel"], "swish");
  EXPECT_TRUE(out["profile"]["kernels"][0]["metrics"].contains("roofline_fraction"));
  EXPECT_FALSE(out["diagnosis"]["findings"].empty());

  DiagnoseCli wrong = Diagnose({"--op", "swish", "--kernel-source",
                        testing::Fixture("kernels/swish/wrong_formula.cpp"), "--no-counters",
                        "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db"});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.output.find("is not a correct swish kernel"), std::string::npos)
      << wrong.output;
}

// An Ascend C kernel without a profiler: the cost model's estimate of its emulated launch is
// the profile. The slow add (one core, element by element) is scalar-bound on a narrow launch;
// the fast package (every core streaming) is bound by its copies in every dtype.
std::vector<std::string> Findings(const nlohmann::json& diagnosis) {
  std::vector<std::string> found;
  for (const auto& f : diagnosis["findings"]) found.push_back(f["bottleneck"]);
  return found;
}

TEST(DiagnoseCliTest, AnAscendcKernelIsDiagnosedFromItsEmulatedLaunch) {
  const std::string db = "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db";
  DiagnoseCli slow = Diagnose({"--target", "ascendc", "--op", "add", "--source",
                               SourcePath("examples/ascendc/add_slow.cpp"), "--json", db});
  ASSERT_EQ(slow.exit_code, 0) << slow.output;
  nlohmann::json out = ParseDiagnoseJson(slow.output);
  ASSERT_TRUE(out.is_object()) << slow.output;
  EXPECT_EQ(out["profile"]["source_tool"], "cannbot-cost-model");
  const nlohmann::json& kernel = out["profile"]["kernels"][0];
  EXPECT_EQ(kernel["block_dim"], 1);
  EXPECT_GT(kernel["metrics"]["scalar_ratio"]["value"].get<double>(), 0.5);
  const std::vector<std::string> found = Findings(out["diagnosis"]);
  for (const char* id : {"low_vectorization", "core_imbalance"}) {
    EXPECT_NE(std::find(found.begin(), found.end(), id), found.end()) << id << slow.output;
  }

  DiagnoseCli fast = Diagnose({"--target", "ascendc", "--op", "add", "--package",
                               SourcePath("examples/ascendc/packages/add_custom_fast"), "--json",
                               "--kernel", "x=float16", db});
  ASSERT_EQ(fast.exit_code, 0) << fast.output;
  out = ParseDiagnoseJson(fast.output);
  ASSERT_TRUE(out.is_object()) << fast.output;
  EXPECT_EQ(out["profile"]["kernels"].size(), 4u);  // one per dtype combination (int32 too)
  EXPECT_NE(out["diagnosis"]["kernel"].get<std::string>().find("x=float16"), std::string::npos);
  EXPECT_EQ(Findings(out["diagnosis"]).front(), "memory_bound") << fast.output;

  // A CPU kernel is not an Ascend C kernel: said, not diagnosed.
  DiagnoseCli cpu = Diagnose({"--target", "ascendc", "--op", "swish", "--source",
                              SourcePath("examples/swish/naive.cpp"), db});
  EXPECT_EQ(cpu.exit_code, 2);
  EXPECT_NE(cpu.output.find("has no estimated profile: it did not reach the cost model: "
                            "rejected at compile"),
            std::string::npos)
      << cpu.output;
  EXPECT_EQ(Diagnose({"--op", "add", "--package",
                      SourcePath("examples/ascendc/packages/add_custom_fast")})
                .exit_code,
            2);  // --package needs --target ascendc
}

TEST(DiagnoseCliTest, ASampleIsDiagnosedAtTheLaunchItsHostProgramMakes) {
  const std::string db = "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db";
  DiagnoseCli single = Diagnose({"--target", "ascendc", "--op", "add", "--source",
                                 SourcePath("examples/ascendc/samples/add_custom_single_core"),
                                 "--json", db});
  ASSERT_EQ(single.exit_code, 0) << single.output;
  nlohmann::json out = ParseDiagnoseJson(single.output);
  ASSERT_TRUE(out.is_object()) << single.output;
  const nlohmann::json& kernel = out["profile"]["kernels"][0];
  EXPECT_EQ(kernel["block_dim"], 1);  // main.cpp's blockDim, not a shape case's
  EXPECT_NE(kernel["name"].get<std::string>().find("a=float16"), std::string::npos);
  const std::vector<std::string> found = Findings(out["diagnosis"]);
  EXPECT_NE(std::find(found.begin(), found.end(), "core_imbalance"), found.end()) << single.output;

  // A cube kernel's estimate is an AI-core profile with a mac ratio: the cube rules judge it.
  DiagnoseCli cube = Diagnose({"--target", "ascendc", "--op", "matmul_f16_f32", "--source",
                               SourcePath("examples/ascendc/samples/matmul_cube_single_core"),
                               "--json", db});
  ASSERT_EQ(cube.exit_code, 0) << cube.output;
  out = ParseDiagnoseJson(cube.output);
  ASSERT_TRUE(out.is_object()) << cube.output;
  const nlohmann::json& matmul = out["profile"]["kernels"][0];
  EXPECT_EQ(matmul["core_type"], "AI_CORE") << cube.output;
  EXPECT_GT(matmul["metrics"]["mac_ratio"]["value"].get<double>(), 0.0) << cube.output;
  EXPECT_EQ(Findings(out["diagnosis"]).front(), "cube_starved") << cube.output;
}

}  // namespace
}  // namespace cannbot
