// The `cannbot` binary as users run it: exit codes, the verdict JSON, the ops listing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/util/subprocess.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

using testing::Fixture;
using testing::SourcePath;

struct Cli {
  int exit_code = -1;
  std::string output;
};

Cli RunCannbot(std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  auto run = RunCommand(options, std::chrono::seconds(120), 4u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

std::string StoreFlag() {
  return "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db";
}

// The JSON document printed on stdout (stderr lines, if any, come first).
nlohmann::json ParseJson(const std::string& output) {
  auto brace = output.find('{');
  if (brace == std::string::npos) return nullptr;
  return nlohmann::json::parse(output.substr(brace), nullptr, false);
}

TEST(CliTest, ValidateAcceptedPrintsVerdictJsonAndExitsZero) {
  Cli cli = RunCannbot({"validate", "--op", "swish", "--candidate",
                        SourcePath("examples/swish/optimized.cpp"), "--baseline",
                        SourcePath("examples/swish/naive.cpp"), "--json", "--seed", "7",
                        StoreFlag()});
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  nlohmann::json verdict = ParseJson(cli.output);
  ASSERT_TRUE(verdict.is_object()) << cli.output;
  EXPECT_EQ(verdict["verdict"], "accepted");
  EXPECT_TRUE(verdict["layer"].is_null());
  EXPECT_EQ(verdict["seed"], 7);
  EXPECT_GT(verdict["perf"]["speedup"].get<double>(), 2.0);
  EXPECT_GE(verdict["perf"]["ci95"][0].get<double>(), 1.05);
  EXPECT_TRUE(verdict["compile"]["log"].is_string());
  EXPECT_GE(verdict["numeric"]["cases"].size(), 3u);
  EXPECT_TRUE(verdict["perf"]["candidate"]["roofline_fraction"].is_number());
}

TEST(CliTest, ValidateRejectedExitsOneWithLayerAndReason) {
  Cli cli = RunCannbot({"validate", "--op", "swish", "--candidate",
                        Fixture("kernels/swish/wrong_formula.cpp"), "--json", StoreFlag()});
  ASSERT_EQ(cli.exit_code, 1) << cli.output;
  nlohmann::json verdict = ParseJson(cli.output);
  EXPECT_EQ(verdict["verdict"], "rejected");
  EXPECT_EQ(verdict["layer"], "numeric");
  EXPECT_FALSE(verdict["reason"].get<std::string>().empty());
  EXPECT_TRUE(verdict["perf"].is_null());
}

// validate and diagnose read cannbot's settings as suggest does: --config FILE, then the
// CANNBOT_* variables; a flag given on the command line wins.
TEST(CliTest, ValidateAndDiagnoseReadTheConfigFileAndTheEnvironment) {
  TempDir tmp = std::move(TempDir::Create("cannbot-cli-config")).value();
  ASSERT_TRUE(WriteFile(tmp.File("cannbot.toml"),
                        "[compiler]\ncommand = \"/nonexistent/c++\"\n").ok());
  const std::vector<std::string> validate = {"validate", "--op", "swish", "--candidate",
                                             SourcePath("examples/swish/naive.cpp"), "--json",
                                             "--no-cache", StoreFlag()};
  std::vector<std::string> args = validate;
  args.push_back("--config=" + tmp.File("cannbot.toml"));
  Cli configured = RunCannbot(args);
  EXPECT_EQ(configured.exit_code, 1) << configured.output;
  EXPECT_EQ(ParseJson(configured.output)["layer"], "compile");
  EXPECT_NE(configured.output.find("/nonexistent/c++"), std::string::npos) << configured.output;
  args.push_back("--compiler=g++");  // the flag wins over the file
  Cli overridden = RunCannbot(args);
  EXPECT_EQ(overridden.output.find("/nonexistent/c++"), std::string::npos) << overridden.output;
  EXPECT_NE(ParseJson(overridden.output)["layer"], "compile") << overridden.output;

  SpawnOptions env_run;
  env_run.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "diagnose", "--op", "swish",
                  "--source", SourcePath("examples/swish/naive.cpp"), StoreFlag()};
  env_run.extra_environment = {"CANNBOT_INSECURE_SANDBOX=maybe"};
  auto refused = RunCommand(env_run, std::chrono::seconds(60));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->exit.exit_code, 2) << refused->output;
  EXPECT_NE(refused->output.find("CANNBOT_INSECURE_SANDBOX must be"), std::string::npos)
      << refused->output;
}

TEST(CliTest, ValidateTableNamesTheVerdict) {
  Cli cli = RunCannbot({"validate", "--op", "swish", "--candidate",
                        Fixture("kernels/swish/segfault.cpp"), StoreFlag()});
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_NE(cli.output.find("VERDICT: rejected at the sandbox layer"), std::string::npos)
      << cli.output;
}

TEST(CliTest, UnknownOpIsAUsageError) {
  Cli cli = RunCannbot({"validate", "--op", "nope", "--candidate",
                        SourcePath("examples/swish/naive.cpp"), "--json", StoreFlag()});
  EXPECT_EQ(cli.exit_code, 2);
  nlohmann::json error = ParseJson(cli.output);
  EXPECT_EQ(error["error"]["code"], "not_found");
  EXPECT_NE(cli.output.find("unknown op 'nope'"), std::string::npos);
}

TEST(CliTest, MissingFileIsAUsageError) {
  Cli cli = RunCannbot({"validate", "--op", "swish", "--candidate", "/nonexistent/k.cpp",
                        StoreFlag()});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.output.find("/nonexistent/k.cpp"), std::string::npos) << cli.output;
}

TEST(CliTest, MissingRequiredFlagIsAUsageError) {
  Cli cli = RunCannbot({"validate", "--op", "swish"});
  EXPECT_EQ(cli.exit_code, 2);
  EXPECT_NE(cli.output.find("--candidate"), std::string::npos) << cli.output;
}

TEST(CliTest, OpsListsEveryBuiltInOp) {
  Cli cli = RunCannbot({"ops"});
  ASSERT_EQ(cli.exit_code, 0);
  for (const char* op : {"add", "relu", "swish", "gelu", "prelu", "softmax", "layernorm",
                         "layernorm_gelu", "matmul", "conv2d", "depthwise_conv2d",
                         "conv_bn_relu", "dwsep_block"}) {
    EXPECT_NE(cli.output.find(std::string(op) + " "), std::string::npos) << op;
  }
}

TEST(CliTest, OpsShowPrintsSignatureShapesAndReference) {
  Cli cli = RunCannbot({"ops", "--show", "depthwise_conv2d"});
  ASSERT_EQ(cli.exit_code, 0);
  EXPECT_NE(cli.output.find("void depthwise_conv2d(const float* x"), std::string::npos);
  EXPECT_NE(cli.output.find("(perf)"), std::string::npos);
  EXPECT_NE(cli.output.find("namespace cannbot_ref"), std::string::npos);
  Cli json = RunCannbot({"ops", "--show", "matmul", "--json"});
  nlohmann::json op = ParseJson(json.output);
  EXPECT_EQ(op["name"], "matmul");
  EXPECT_GE(op["shapes"].size(), 4u);
}

TEST(CliTest, OpsShowUnknownOpExitsTwo) {
  EXPECT_EQ(RunCannbot({"ops", "--show", "nope"}).exit_code, 2);
}

// A user's op from --ops-dir, on either side of the subcommand: validate judges it against
// its own reference and says so; ops --show prints the spec as understood; without the
// directory the op is unknown.
TEST(CliTest, AnOpsDirOpIsValidatedAndShownLikeABuiltIn) {
  const std::string dir = Fixture("user_ops");
  Cli verdict = RunCannbot({"--ops-dir", dir, "validate", "--op", "add_broadcast", "--candidate",
                            dir + "/kernels/add_broadcast_wrong.cpp", "--seed", "3", "--json",
                            StoreFlag()});
  EXPECT_EQ(verdict.exit_code, 1) << verdict.output;
  nlohmann::json v = ParseJson(verdict.output);
  ASSERT_TRUE(v.is_object()) << verdict.output;
  EXPECT_EQ(v["layer"], "numeric");
  EXPECT_EQ(v["reference"], "the reference add_broadcast_ref.cpp (sandboxed)");

  Cli shown = RunCannbot({"ops", "--ops-dir", dir, "--show", "rms_norm_custom"});
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("void rms_norm_custom(const half* x, const half* gamma, half* y"),
            std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("CANN standard"), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("untrusted: sandboxed"), std::string::npos) << shown.output;

  Cli unknown = RunCannbot({"validate", "--op", "rms_norm_custom", "--candidate",
                            dir + "/kernels/rms_norm_fast.cpp", StoreFlag()});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("rms_norm_custom"), std::string::npos) << unknown.output;
}

}  // namespace
}  // namespace cannbot
