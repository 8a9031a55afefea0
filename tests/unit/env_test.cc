#include "cannbot/util/env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot {
namespace {

using cannbot::test::Contains;

CommandOptions ShellCommand(const std::string& script, std::chrono::milliseconds timeout) {
  CommandOptions options;
  options.spawn.argv = {"/bin/sh", "-c", script};
  options.timeout = timeout;
  return options;
}

TEST(EnvTest, DefaultIsOneProcessWideObject) {
  Env* env = Env::Default();
  ASSERT_NE(env, nullptr);
  EXPECT_EQ(env, Env::Default());
}

TEST(EnvTest, DefaultWritesAndReadsFiles) {
  auto dir = TempDir::Create("cannbot-env-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  Env* env = Env::Default();
  const std::string path = dir->File("kernel.cpp");
  ASSERT_TRUE(env->WriteFile(path, "void k() {}\n").ok());
  auto back = env->ReadFile(path, 1024);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back.value(), "void k() {}\n");

  auto too_big = env->ReadFile(path, 4);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), Status::Code::kInvalidArgument);
  auto missing = env->ReadFile(dir->File("missing.cpp"), 1024);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
}

TEST(EnvTest, DefaultClockIsMonotonicAndAdvances) {
  Env* env = Env::Default();
  const double before = env->NowSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double after = env->NowSeconds();
  EXPECT_GE(after - before, 0.015);
  EXPECT_LT(after - before, 10.0);
}

TEST(EnvTest, DefaultRunsCommandsAndCapturesTheirOutput) {
  auto run = Env::Default()->Run(ShellCommand("echo hello; echo oops >&2; exit 3",
                                              std::chrono::milliseconds(10000)));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->exit.exited);
  EXPECT_EQ(run->exit.exit_code, 3);
  EXPECT_FALSE(run->timed_out);
  EXPECT_TRUE(Contains(run->output, "hello")) << run->output;
  EXPECT_TRUE(Contains(run->output, "oops")) << run->output;
}

TEST(EnvTest, DefaultKillsACommandThatRunsPastItsTimeout) {
  auto run = Env::Default()->Run(ShellCommand("sleep 30", std::chrono::milliseconds(200)));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->timed_out);
  EXPECT_FALSE(run->exit.Success());
  EXPECT_LT(run->seconds, 10.0);
}

// A fake overrides what it changes; the rest reaches the wrapped Env.
class FrozenClockEnv : public EnvWrapper {
 public:
  FrozenClockEnv() : EnvWrapper(Env::Default()) {}
  double NowSeconds() override { return 7; }
};

TEST(EnvTest, WrapperForwardsWhatItDoesNotOverride) {
  FrozenClockEnv env;
  EXPECT_EQ(env.target(), Env::Default());
  EXPECT_EQ(env.NowSeconds(), 7);
  auto dir = TempDir::Create("cannbot-env-test");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(env.WriteFile(dir->File("a.txt"), "forwarded").ok());
  auto back = ReadFile(dir->File("a.txt"));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), "forwarded");
}

}  // namespace
}  // namespace cannbot
