// Installed like a tool: `cmake --install` into a temporary prefix, and the Debian package
// `cpack -G DEB` builds, each run with the checkout hidden. The source tree (and the build
// tree inside it) is covered by an empty tmpfs in a private mount namespace, so any read of
// the checkout by the installed binary fails: the demo must find its skills, prompts,
// examples and runner in the install alone.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

struct ProcessRun {
  int exit_code = -1;
  std::string output;
};

ProcessRun RunArgs(std::vector<std::string> argv, std::chrono::seconds timeout,
            const std::string& working_dir = "") {
  SpawnOptions options;
  options.argv = std::move(argv);
  options.working_dir = working_dir;
  auto run = RunCommand(options, timeout, 4u << 20);
  if (!run.ok()) return {-1, run.status().ToString()};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

// `command` with the source tree hidden behind an empty tmpfs (a private mount namespace;
// a user namespace too when not root).
ProcessRun WithoutSourceTree(std::vector<std::string> command, std::chrono::seconds timeout,
                      const std::string& working_dir) {
  std::vector<std::string> argv = {"unshare"};
  if (::geteuid() != 0) argv.push_back("--map-root-user");
  argv.insert(argv.end(), {"--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                           "mount -t tmpfs cannbot-hidden \"$1\" && shift && "
                           "test ! -e \"$0\" && exec \"$@\"",
                           std::string(CANNBOT_SOURCE_DIR) + "/README.md",
                           std::string(CANNBOT_SOURCE_DIR)});
  argv.insert(argv.end(), command.begin(), command.end());
  return RunArgs(argv, timeout, working_dir);
}

TEST(InstallTest, TheInstalledBinaryRunsTheDemoWithTheSourceTreeHidden) {
  auto temp = TempDir::Create("cannbot-install");
  ASSERT_TRUE(temp.ok());
  const std::string prefix = temp->File("prefix");
  const ProcessRun install = RunArgs({CANNBOT_CMAKE_COMMAND, "--install", CANNBOT_BUILD_DIR,
                               "--prefix", prefix}, std::chrono::seconds(120));
  ASSERT_EQ(install.exit_code, 0) << install.output;
  const std::string share = prefix + "/share/cannbot";
  for (const char* path : {"/bin/cannbot", "/bin/cannbot-runner"}) {
    EXPECT_TRUE(PathExists(prefix + path)) << path;
  }
  for (const char* path : {"/skills", "/prompts", "/targets/ascendc", "/ops/swish.toml",
                           "/examples/swish/naive.cpp", "/server/cannbot.toml"}) {
    EXPECT_TRUE(PathExists(share + path)) << path;
  }
  EXPECT_TRUE(PathExists(prefix + "/share/doc/cannbot/README.md"));

  // The README's demo, from the install, in a folder outside the checkout.
  const ProcessRun demo = WithoutSourceTree(
      {prefix + "/bin/cannbot", "suggest", share + "/examples/swish/naive.cpp", "--op", "swish",
       "--profile", share + "/examples/swish/profile.json", "--db", temp->File("store.db"),
       "--out", temp->File("swish.suggested.cpp"), "--budget", "4", "--time-budget", "5"},
      std::chrono::seconds(280), temp->path());
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  EXPECT_NE(demo.output.find("RESULT: a validated kernel"), std::string::npos) << demo.output;
  // The skills came from the install (the diagnosis picked one and the prompt library loaded).
  EXPECT_NE(demo.output.find("Skills used"), std::string::npos) << demo.output;
  EXPECT_TRUE(PathExists(temp->File("swish.suggested.cpp")));
}

// The same binary copied out of the build tree with no share/ beside it must not fall back to
// the checkout: it names the install path it looked in.
TEST(InstallTest, ABinaryOutsideTheBuildTreeNeverReadsTheSourceTree) {
  auto temp = TempDir::Create("cannbot-install");
  ASSERT_TRUE(temp.ok());
  const std::string bin = temp->File("bin");
  ASSERT_EQ(RunArgs({"mkdir", "-p", bin}, std::chrono::seconds(10)).exit_code, 0);
  ASSERT_EQ(RunArgs({"cp", std::string(CANNBOT_BUILD_DIR) + "/cannbot",
                     std::string(CANNBOT_BUILD_DIR) + "/cannbot-runner", bin},
                    std::chrono::seconds(60)).exit_code, 0);
  const ProcessRun skills = RunArgs({bin + "/cannbot", "skills"}, std::chrono::seconds(60),
                             temp->path());
  EXPECT_EQ(skills.output.find(CANNBOT_SOURCE_DIR), std::string::npos) << skills.output;
  EXPECT_NE(skills.output.find(temp->path() + "/bin/../share/cannbot/skills"),
            std::string::npos) << skills.output;
}

TEST(InstallTest, TheDebianPackageHoldsTheToolAndRunsWithTheSourceTreeHidden) {
  auto temp = TempDir::Create("cannbot-deb");
  ASSERT_TRUE(temp.ok());
  const ProcessRun pack = RunArgs({CANNBOT_CPACK_COMMAND, "-G", "DEB", "-B", temp->File("out")},
                           std::chrono::seconds(280), CANNBOT_BUILD_DIR);
  ASSERT_EQ(pack.exit_code, 0) << pack.output;
  const ProcessRun find = RunArgs({"/bin/sh", "-c", "ls \"$0\"/cannbot_*.deb", temp->File("out")},
                           std::chrono::seconds(10));
  ASSERT_EQ(find.exit_code, 0) << find.output;
  const std::string deb = find.output.substr(0, find.output.find('\n'));

  const ProcessRun depends = RunArgs({"dpkg-deb", "-f", deb, "Depends"}, std::chrono::seconds(30));
  ASSERT_EQ(depends.exit_code, 0) << depends.output;
  for (const char* package : {"g++", "libc6-dev", "libsqlite3", "libseccomp", "libcurl", "libpq5"}) {
    EXPECT_NE(depends.output.find(package), std::string::npos) << depends.output;
  }
  const std::string root = temp->File("root");
  ASSERT_EQ(RunArgs({"dpkg-deb", "-x", deb, root}, std::chrono::seconds(60)).exit_code, 0);
  // A self-profiled diagnosis compiles the kernel and runs it in the packaged runner.
  const ProcessRun diagnose = WithoutSourceTree(
      {root + "/usr/bin/cannbot", "diagnose", "--op", "swish", "--source",
       root + "/usr/share/cannbot/examples/swish/naive.cpp", "--db", temp->File("store.db")},
      std::chrono::seconds(200), temp->path());
  ASSERT_EQ(diagnose.exit_code, 0) << diagnose.output;
  EXPECT_NE(diagnose.output.find("low_vectorization"), std::string::npos) << diagnose.output;
}

}  // namespace
}  // namespace cannbot
