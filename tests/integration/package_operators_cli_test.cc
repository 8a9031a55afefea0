// A custom operator project with two operators side by side (two of our example packages
// copied into one op_host/ and one op_kernel/): `validate --operator` runs the one named, in
// every dtype of its OpDef, against its op; without --operator the command names both.
#include <gtest/gtest.h>

#include <filesystem>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

namespace fs = std::filesystem;

Result<CommandResult> Validate(const std::vector<std::string>& args) {
  SpawnOptions cli;
  cli.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "validate", "--target", "ascendc",
              "--seed", "3", "--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db"};
  cli.argv.insert(cli.argv.end(), args.begin(), args.end());
  return RunCommand(cli, std::chrono::seconds(240));
}

TEST(PackageOperatorsCliTest, TheNamedOperatorOfAProjectIsValidated) {
  auto dir = TempDir::Create("cannbot-project-test");
  ASSERT_TRUE(dir.ok());
  for (const char* example : {"add_custom_fast", "swish_custom_fast"}) {
    fs::copy(testing::SourcePath(std::string("examples/ascendc/packages/") + example),
             dir->path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  }
  auto swish = Validate({"--op", "swish", "--package", dir->path(), "--operator", "swish_custom"});
  ASSERT_TRUE(swish.ok()) << swish.status().ToString();
  EXPECT_TRUE(swish->exit.Success()) << swish->output;
  EXPECT_NE(swish->output.find("kernel swish_custom in op_kernel/swish_custom.cpp"),
            std::string::npos)
      << swish->output;
  EXPECT_NE(swish->output.find("x=float16 y=float16: correct"), std::string::npos)
      << swish->output;

  auto neither = Validate({"--op", "add", "--package", dir->path()});
  ASSERT_TRUE(neither.ok());
  EXPECT_EQ(neither->exit.exit_code, 2) << neither->output;
  EXPECT_NE(neither->output.find("defines several operators: AddCustom (kernel add_custom, "
                                 "op_host/add_custom.cpp), SwishCustom (kernel swish_custom, "
                                 "op_host/swish_custom.cpp)"),
            std::string::npos)
      << neither->output;
}

}  // namespace
}  // namespace cannbot
