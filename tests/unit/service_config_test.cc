// The daemon's [server] settings (config/config.h): every key, unknown keys, wrong types and
// the CANNBOT_HOST/PORT/WORKERS/TOKENS environment variables.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cannbot/config/config.h"
#include "cannbot/util/fs.h"

namespace cannbot::config {
namespace {

class ServerConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-server-config-test");
    ASSERT_TRUE(dir.ok());
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }
  void TearDown() override {
    for (const char* name : {"CANNBOT_HOST", "CANNBOT_PORT", "CANNBOT_WORKERS", "CANNBOT_TOKENS"}) {
      unsetenv(name);
    }
  }
  Status Load(const std::string& name, const std::string& text, Config* config) {
    Status written = WriteFile(dir_->File(name), text);
    if (!written.ok()) return written;
    return LoadFile(dir_->File(name), config);
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(ServerConfigTest, DefaultsBindLoopbackWithoutTokens) {
  Config config;
  EXPECT_EQ(config.server.host, "127.0.0.1");
  EXPECT_TRUE(config.server.tokens.empty());
  EXPECT_GT(config.server.queue_size, 0);
  EXPECT_EQ(config.server.workers, 0);
}

TEST_F(ServerConfigTest, TomlSetsEveryServerKey) {
  Config config;
  Status s = Load("server.toml", R"([server]
host = "0.0.0.0"
port = 9000
tokens = ["a", "b"]
queue_size = 8
workers = 3
max_body_bytes = 65536
retention_days = 7.5
retention_jobs = 100
shutdown_grace_seconds = 12
http_threads = 16
llm_urls = ["http://10.0.0.5:8000/v1"]
)",
                  &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const ServerConfig& c = config.server;
  EXPECT_EQ(c.host, "0.0.0.0");
  EXPECT_EQ(c.port, 9000);
  EXPECT_EQ(c.tokens, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.queue_size, 8);
  EXPECT_EQ(c.workers, 3);
  EXPECT_EQ(c.max_body_bytes, 65536);
  EXPECT_DOUBLE_EQ(c.retention_days, 7.5);
  EXPECT_EQ(c.retention_jobs, 100);
  EXPECT_DOUBLE_EQ(c.shutdown_grace_seconds, 12);
  EXPECT_EQ(c.http_threads, 16);
  EXPECT_EQ(c.llm_urls, (std::vector<std::string>{"http://10.0.0.5:8000/v1"}));
}

TEST_F(ServerConfigTest, JsonFormWorksToo) {
  Config config;
  Status s = Load("server.json", R"({"server": {"port": 1234, "tokens": ["t"]}})", &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.server.port, 1234);
  EXPECT_EQ(config.server.tokens, std::vector<std::string>{"t"});
}

TEST_F(ServerConfigTest, UnknownKeysAndWrongTypesAreErrors) {
  Config config;
  Status unknown = Load("u.toml", "[server]\nqueue = 3\n", &config);
  EXPECT_EQ(unknown.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(unknown.message().find("server.queue"), std::string::npos) << unknown.message();
  Status wrong = Load("w.toml", "[server]\nport = \"eighty\"\n", &config);
  EXPECT_NE(wrong.message().find("server.port"), std::string::npos) << wrong.message();
  Status scalar = Load("s.toml", "server = 3\n", &config);
  EXPECT_FALSE(scalar.ok());
}

TEST_F(ServerConfigTest, EnvironmentOverridesTheFile) {
  Config config;
  config.server.tokens = {"from-file"};
  setenv("CANNBOT_HOST", "0.0.0.0", 1);
  setenv("CANNBOT_PORT", "9100", 1);
  setenv("CANNBOT_WORKERS", "4", 1);
  setenv("CANNBOT_TOKENS", "one,,two", 1);
  Status s = ApplyEnvironment(&config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.server.host, "0.0.0.0");
  EXPECT_EQ(config.server.port, 9100);
  EXPECT_EQ(config.server.workers, 4);
  EXPECT_EQ(config.server.tokens, (std::vector<std::string>{"one", "two"}));
  setenv("CANNBOT_PORT", "http", 1);
  EXPECT_NE(ApplyEnvironment(&config).message().find("CANNBOT_PORT"), std::string::npos);
}

TEST_F(ServerConfigTest, TheShippedExampleConfigLoads) {
  Config config;
  Status s = LoadFile(std::string(CANNBOT_SOURCE_DIR) + "/server/cannbot.toml", &config);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(config.server.host, "127.0.0.1");
}

}  // namespace
}  // namespace cannbot::config
