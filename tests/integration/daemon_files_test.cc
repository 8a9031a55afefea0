// The daemon's contract files hold: server/openapi.yaml documents every route the daemon
// serves and the daemon serves every documented route; docker/ copies only paths that exist.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "cannbot/service/routes.h"
#include "integration/daemon_support.h"

namespace cannbot {
namespace {

using testing::Daemon;
using testing::HttpReply;
using testing::SourcePath;

using Route = std::pair<std::string, std::string>;  // {METHOD, /path/{param}}

std::set<Route> DocumentedRoutes() {
  YAML::Node spec = YAML::LoadFile(SourcePath("server/openapi.yaml"));
  std::set<Route> routes;
  for (const auto& path : spec["paths"]) {
    for (const auto& op : path.second) {
      std::string method = op.first.as<std::string>();
      if (method == "parameters") continue;
      for (char& c : method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      routes.insert({method, path.first.as<std::string>()});
    }
  }
  return routes;
}

std::set<Route> ServedRoutes() {
  // The route table does not touch the Service until a request comes.
  service::Api api(nullptr, {});
  std::set<Route> routes;
  for (const service::Router::Route& r : api.Routes()) routes.insert({r.method, r.pattern});
  return routes;
}

TEST(DaemonFilesTest, EveryServedRouteIsDocumentedAndEveryDocumentedRouteIsServed) {
  const std::set<Route> documented = DocumentedRoutes();
  const std::set<Route> served = ServedRoutes();
  ASSERT_FALSE(served.empty());
  for (const Route& r : served) {
    EXPECT_TRUE(documented.count(r)) << r.first << " " << r.second << " is not in openapi.yaml";
  }
  for (const Route& r : documented) {
    EXPECT_TRUE(served.count(r)) << r.first << " " << r.second << " is documented, not served";
  }
}

TEST(DaemonFilesTest, TheRunningDaemonAnswersEveryDocumentedRoute) {
  Daemon daemon;
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  for (const auto& [method, pattern] : DocumentedRoutes()) {
    std::string path = pattern;
    for (const auto& [param, value] : {std::pair<std::string, std::string>{"{id}", "j-0"},
                                       {"{name}", "relu"}}) {
      if (size_t at = path.find(param); at != std::string::npos) path.replace(at, param.size(), value);
    }
    HttpReply r = method == "GET"      ? daemon.Get(path)
                  : method == "DELETE" ? daemon.Delete(path)
                                       : daemon.Post(path, "{}");
    EXPECT_NE(r.status, 0) << method << " " << path;
    EXPECT_NE(r.error_code(), "route_not_found") << method << " " << path;
    EXPECT_NE(r.error_code(), "method_not_allowed") << method << " " << path;
    EXPECT_LT(r.status, 500) << method << " " << path << ": " << r.body;
  }
  EXPECT_TRUE(daemon.Terminate().has_value());
}

std::string ReadRepoFile(const std::string& relative) {
  std::ifstream in(SourcePath(relative));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DaemonFilesTest, EveryPathTheDockerfileCopiesExists) {
  std::istringstream dockerfile(ReadRepoFile("docker/Dockerfile"));
  std::string line;
  int copies = 0;
  while (std::getline(dockerfile, line)) {
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word != "COPY") continue;
    std::vector<std::string> args;
    bool from_stage = false;
    while (words >> word) {
      if (word.rfind("--from=", 0) == 0) from_stage = true;
      else if (word.rfind("--", 0) != 0) args.push_back(word);
    }
    ASSERT_GE(args.size(), 2u) << line;
    if (from_stage) continue;  // copied out of the build stage, not from the repository
    for (size_t i = 0; i + 1 < args.size(); ++i) {
      ++copies;
      EXPECT_TRUE(PathExists(SourcePath(args[i]))) << "docker/Dockerfile copies " << args[i];
    }
  }
  EXPECT_GE(copies, 5);
}

TEST(DaemonFilesTest, ComposeBuildsFromTheRepositoryWithTheDockerfile) {
  YAML::Node compose = YAML::LoadFile(SourcePath("docker/compose.yaml"));
  YAML::Node build = compose["services"]["cannbot"]["build"];
  ASSERT_TRUE(build.IsMap());
  const std::string context = "docker/" + build["context"].as<std::string>();
  EXPECT_TRUE(PathExists(SourcePath(context + "/" + build["dockerfile"].as<std::string>())));
  // One model server per profile, both reachable as "llm" (the daemon's CANNBOT_LLM_URL).
  for (const char* server : {"llamacpp", "vllm"}) {
    YAML::Node service = compose["services"][server];
    ASSERT_TRUE(service.IsMap()) << server;
    EXPECT_EQ(service["networks"]["default"]["aliases"][0].as<std::string>(), "llm");
  }
  const std::string url =
      compose["services"]["cannbot"]["environment"]["CANNBOT_LLM_URL"].as<std::string>();
  EXPECT_EQ(url.rfind("http://llm:", 0), 0u) << url;
}

TEST(DaemonFilesTest, TheScaleComposeRunsWorkersAndAFrontEndOnOnePostgresStore) {
  YAML::Node compose = YAML::LoadFile(SourcePath("docker/compose.scale.yml"));
  YAML::Node services = compose["services"];
  ASSERT_TRUE(services["postgres"].IsMap());
  EXPECT_NE(services["postgres"]["image"].as<std::string>().find("postgres"), std::string::npos);
  YAML::Node worker = services["worker"];
  ASSERT_TRUE(worker.IsMap());
  EXPECT_EQ(worker["entrypoint"][1].as<std::string>(), "worker");
  const std::string worker_store = worker["environment"]["CANNBOT_STORE"].as<std::string>();
  const std::string api_store = services["api"]["environment"]["CANNBOT_STORE"].as<std::string>();
  EXPECT_EQ(worker_store, api_store);  // one line for all
  EXPECT_EQ(worker_store.rfind("postgresql://", 0), 0u) << worker_store;
  EXPECT_NE(worker_store.find("@postgres:5432/"), std::string::npos) << worker_store;
  EXPECT_EQ(services["api"]["command"][0].as<std::string>(), "--api-only");
}

TEST(DaemonFilesTest, TheSystemdUnitRunsServe) {
  const std::string unit = ReadRepoFile("server/cannbot.service");
  EXPECT_NE(unit.find("ExecStart=/usr/local/bin/cannbot serve"), std::string::npos);
  EXPECT_NE(unit.find("KillSignal=SIGTERM"), std::string::npos);
}

}  // namespace
}  // namespace cannbot
