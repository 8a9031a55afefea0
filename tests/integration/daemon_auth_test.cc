// Bearer tokens: off by default (the other daemon tests), on from the config file or from
// CANNBOT_TOKENS. /healthz stays open for health checkers; everything else needs a token.
#include <gtest/gtest.h>

#include "integration/daemon_support.h"

namespace cannbot {
namespace {

using testing::Daemon;
using testing::HttpReply;

void ExpectLocked(Daemon& daemon, const std::string& good) {
  HttpReply open = daemon.Get("/healthz");
  EXPECT_EQ(open.status, 200) << open.body;
  for (const char* path : {"/ops", "/jobs", "/metrics", "/skills", "/jobs/j-0/events"}) {
    HttpReply none = daemon.Get(path);
    EXPECT_EQ(none.status, 401) << path;
    EXPECT_EQ(none.error_code(), "unauthorized") << path;
    EXPECT_EQ(none.header("WWW-Authenticate"), "Bearer");
    HttpReply wrong = daemon.Get(path, {{"Authorization", "Bearer " + good + "x"}});
    EXPECT_EQ(wrong.status, 401) << path;
    HttpReply basic = daemon.Get(path, {{"Authorization", "Basic " + good}});
    EXPECT_EQ(basic.status, 401) << path;
  }
  EXPECT_EQ(daemon.PostJson("/optimize", testing::OfflineJob("relu")).status, 401);
  EXPECT_EQ(daemon.Delete("/jobs/j-0").status, 401);
  HttpReply right = daemon.Get("/ops", {{"Authorization", "Bearer " + good}});
  EXPECT_EQ(right.status, 200) << right.body;
  // A token does not turn a bad request into a good one.
  HttpReply bad = daemon.Post("/optimize", "{", {{"Authorization", "Bearer " + good}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.error_code(), "invalid_json");
}

TEST(DaemonAuthTest, TokensFromTheConfigFile) {
  Daemon daemon(Daemon::Options{{}, {}, "[server]\ntokens = [\"alpha-token\", \"beta-token\"]\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  ExpectLocked(daemon, "alpha-token");
  EXPECT_EQ(daemon.Get("/jobs", {{"Authorization", "Bearer beta-token"}}).status, 200);
  EXPECT_NE(daemon.Log().find("bearer tokens required"), std::string::npos);
  EXPECT_EQ(daemon.Log().find("alpha-token"), std::string::npos);  // never logged
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonAuthTest, TokensFromTheEnvironmentAndTheCliClient) {
  Daemon daemon(Daemon::Options{{}, {"CANNBOT_TOKENS=env-token"}, ""});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  ExpectLocked(daemon, "env-token");
  // The CLI without the token is told why, with the suggest exit code for errors.
  auto run = RunCommand(
      SpawnOptions{{std::string(CANNBOT_BUILD_DIR) + "/cannbot", "suggest",
                    testing::SourcePath("examples/relu/naive.cpp"), "--op", "relu", "--server",
                    daemon.url()},
                   true, {}, {"CANNBOT_TOKEN="}, "", "", {}},
      std::chrono::seconds(30));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit.exit_code, 2) << run->output;
  EXPECT_NE(run->output.find("401 unauthorized"), std::string::npos) << run->output;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonAuthTest, NoTokensMeansOpen) {
  Daemon daemon;
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  EXPECT_EQ(daemon.Get("/ops").status, 200);
  EXPECT_EQ(daemon.Get("/metrics").status, 200);
  EXPECT_NE(daemon.Log().find("no authentication"), std::string::npos);
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot
