// The comment posters (ci/poster.h, ci/api_client.h) against a scripted HttpClient: paging
// by Link header and by page number, PATCH versus POST, retries that honour Retry-After and
// X-RateLimit-Reset, errors naming endpoint and status, a POST that may have landed is never
// repeated blindly, and the token never appears in any message.
#include <gtest/gtest.h>

#include <deque>

#include "cannbot/ci/comment.h"
#include "cannbot/ci/poster.h"

namespace cannbot::ci {
namespace {

constexpr const char* kToken = "ghp_secretTOKEN1234567890";

struct Scripted {
  int status = 200;
  nlohmann::json body;
  std::map<std::string, std::string> headers;
  bool transport_error = false;
};

class FakeHttp : public llm::HttpClient {
 public:
  Result<llm::HttpResponse> Send(const llm::HttpRequest& request) override {
    requests.push_back(request);
    if (script.empty()) {
      return Status::Internal("no scripted answer for " + request.method + " " + request.url);
    }
    Scripted next = script.front();
    script.pop_front();
    if (next.transport_error) return Status::Unavailable(request.url + ": connection reset");
    return llm::HttpResponse{next.status, next.headers,
                             next.body.is_null() ? "" : next.body.dump()};
  }
  std::deque<Scripted> script;
  std::vector<llm::HttpRequest> requests;
};

nlohmann::json Comments(int first_id, int count, const std::string& body = "an ordinary comment") {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < count; ++i) out.push_back({{"id", first_id + i}, {"body", body}});
  return out;
}

struct Harness {
  FakeHttp http;
  std::vector<std::chrono::milliseconds> waits;
  std::vector<std::string> logs;
  PosterConfig config;

  Harness(Forge forge = Forge::kGitHub) {
    config.forge = forge;
    config.api_url = "https://api.example.test";
    config.repo = "acme/kernels";
    config.pr = 7;
    config.token = kToken;
    config.token_source = "$GITHUB_TOKEN";
    config.per_page = 2;
    config.sleep = [this](std::chrono::milliseconds d) { waits.push_back(d); };
    config.now = [] { return int64_t{1000000}; };
    config.log = [this](const std::string& line) { logs.push_back(line); };
  }
  CommentPoster Poster() { return CommentPoster(config, &http); }
};

const std::string kBody = std::string(kCommentMarker) + "\nnew findings";

TEST(CiPosterTest, GitHubFollowsLinkPagesThenPostsOnce) {
  Harness h;
  h.http.script = {
      {200,
       Comments(1, 2),
       {{"link",
         "<https://api.example.test/repositories/9/issues/7/comments?per_page=2&page=2>; "
         "rel=\"next\", <https://api.example.test/x?page=3>; rel=\"last\""}}},
      {200,
       Comments(3, 2),
       {{"link",
         "<https://api.example.test/repositories/9/issues/7/comments?per_page=2&page=3>; "
         "rel=\"next\""}}},
      {200, Comments(5, 1), {}},
      {201, {{"id", 99}, {"html_url", "https://example.test/c/99"}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kCreated);
  EXPECT_EQ(posted->id, "99");
  ASSERT_EQ(h.http.requests.size(), 4u);
  EXPECT_EQ(h.http.requests[0].url,
            "https://api.example.test/repos/acme/kernels/issues/7/comments?per_page=2");
  EXPECT_EQ(h.http.requests[2].url,
            "https://api.example.test/repositories/9/issues/7/comments?per_page=2&page=3");
  EXPECT_EQ(h.http.requests[3].method, "POST");
  EXPECT_EQ(h.http.requests[3].url,
            "https://api.example.test/repos/acme/kernels/issues/7/comments");
  EXPECT_EQ(nlohmann::json::parse(h.http.requests[3].body)["body"], kBody);
  bool auth = false;
  for (const auto& [name, value] : h.http.requests[3].headers) {
    if (name == "Authorization") auth = value == std::string("Bearer ") + kToken;
  }
  EXPECT_TRUE(auth);
}

TEST(CiPosterTest, GitHubPatchesTheMarkedCommentAndLeavesAnEqualOneAlone) {
  Harness h;
  nlohmann::json page = Comments(1, 2);
  page[1]["body"] = std::string(kCommentMarker) + "\nold findings";
  h.http.script = {{200, page, {}}, {200, {{"id", 2}, {"html_url", "u"}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kUpdated);
  ASSERT_EQ(h.http.requests.size(), 2u);
  EXPECT_EQ(h.http.requests[1].method, "PATCH");
  EXPECT_EQ(h.http.requests[1].url,
            "https://api.example.test/repos/acme/kernels/issues/comments/2");

  Harness same;
  page[1]["body"] = kBody;
  same.http.script = {{200, page, {}}};
  auto unchanged = same.Poster().Upsert(kBody);
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(unchanged->action, PostResult::Action::kUnchanged);
  EXPECT_EQ(same.http.requests.size(), 1u);
}

TEST(CiPosterTest, GitCodePagesByNumberUntilAShortPage) {
  Harness h(Forge::kGitCode);
  nlohmann::json second = Comments(3, 1);
  second[0]["body"] = std::string(kCommentMarker) + "\nold";
  second[0]["id"] = "c-3";  // GitCode may spell ids as strings
  h.http.script = {{200, Comments(1, 2), {}}, {200, second, {}}, {200, {{"id", "c-3"}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kUpdated);
  EXPECT_EQ(h.http.requests[0].url,
            "https://api.example.test/repos/acme/kernels/pulls/7/comments?per_page=2&page=1");
  EXPECT_EQ(h.http.requests[1].url,
            "https://api.example.test/repos/acme/kernels/pulls/7/comments?per_page=2&page=2");
  EXPECT_EQ(h.http.requests[2].url,
            "https://api.example.test/repos/acme/kernels/pulls/comments/c-3");
  bool private_token = false;
  for (const auto& [name, value] : h.http.requests[0].headers) {
    private_token |= name == "PRIVATE-TOKEN" && value == kToken;
  }
  EXPECT_TRUE(private_token);
  for (const auto& r : h.http.requests) EXPECT_EQ(r.url.find(kToken), std::string::npos);
}

TEST(CiPosterTest, ServerErrorsAndRateLimitsAreRetriedAsTheServerAsks) {
  Harness h;
  h.http.script = {{502, nullptr, {}},
                   {503, {{"message", "busy"}}, {{"retry-after", "7"}}},
                   {403,
                    {{"message", "API rate limit exceeded"}},
                    {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1000030"}}},
                   {429, nullptr, {}},
                   {200, Comments(1, 1), {}},
                   {201, {{"id", 5}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  ASSERT_EQ(h.waits.size(), 4u);
  EXPECT_EQ(h.waits[0], std::chrono::milliseconds(2000));   // no hint: the first backoff
  EXPECT_EQ(h.waits[1], std::chrono::seconds(7));           // Retry-After
  EXPECT_EQ(h.waits[2], std::chrono::seconds(31));          // reset - now + 1
  EXPECT_EQ(h.waits[3], std::chrono::milliseconds(16000));  // fourth retry, doubled thrice
  ASSERT_FALSE(h.logs.empty());
  EXPECT_NE(h.logs[0].find("answered 502; retrying in 2 s"), std::string::npos) << h.logs[0];
}

TEST(CiPosterTest, ARateLimitLongerThanTheRunWaitsFailsClearly) {
  Harness h;
  h.http.script = {{403,
                    {{"message", "API rate limit exceeded"}},
                    {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1003600"}}}};
  auto found = h.Poster().Find();
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("asks to wait 3601 s"), std::string::npos)
      << found.status().message();
  EXPECT_TRUE(h.waits.empty());
}

TEST(CiPosterTest, ClientErrorsNameEndpointAndStatusAndAreNotRetried) {
  for (int status : {401, 403, 404, 422}) {
    Harness h;
    h.http.script = {{200, Comments(1, 1), {}},
                     {status, {{"message", std::string("echoing ") + kToken}}, {}}};
    auto posted = h.Poster().Upsert(kBody);
    ASSERT_FALSE(posted.ok()) << status;
    const std::string message = posted.status().message();
    EXPECT_NE(
        message.find("GitHub API: POST "
                     "https://api.example.test/repos/acme/kernels/issues/7/comments answered " +
                     std::to_string(status)),
        std::string::npos)
        << message;
    EXPECT_EQ(message.find(kToken), std::string::npos) << message;
    EXPECT_NE(message.find("***"), std::string::npos);
    EXPECT_EQ(h.http.requests.size(), 2u) << status;
    EXPECT_TRUE(h.waits.empty());
  }
  Harness h;
  h.http.script = {{401, {{"message", "Bad credentials"}}, {}}};
  auto found = h.Poster().Find();
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find(
                "401 Unauthorized: Bad credentials. The token in $GITHUB_TOKEN"),
            std::string::npos)
      << found.status().message();
}

TEST(CiPosterTest, APostThatMayHaveLandedIsCheckedBeforeItIsRepeated) {
  Harness h;
  nlohmann::json landed = Comments(1, 1);
  landed.push_back({{"id", 50}, {"body", kBody}});
  h.http.script = {{200, Comments(1, 1), {}},
                   {502, nullptr, {}},  // the POST: did it land?
                   {200, landed, {}}};  // it did: no second POST
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kUnchanged);
  EXPECT_EQ(posted->id, "50");
  int posts = 0;
  for (const auto& r : h.http.requests) posts += r.method == "POST";
  EXPECT_EQ(posts, 1);
}

TEST(CiPosterTest, NothingIsPostedUnlessEveryPageWasRead) {
  Harness h;
  h.config.retry.max_attempts = 2;
  h.http.script = {{200, Comments(1, 2), {{"link", "<https://api.example.test/p2>; rel=\"next\""}}},
                   {500, nullptr, {}},
                   {500, nullptr, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_FALSE(posted.ok());
  EXPECT_NE(posted.status().message().find("GET https://api.example.test/p2 answered 500"),
            std::string::npos)
      << posted.status().message();
  for (const auto& r : h.http.requests) EXPECT_NE(r.method, "POST");
}

TEST(CiPosterTest, PaginationNeverLeavesTheApiOrigin) {
  Harness h;
  h.http.script = {
      {200, Comments(1, 2), {{"link", "<https://evil.test/steal?page=2>; rel=\"next\""}}}};
  auto found = h.Poster().Find();
  ASSERT_FALSE(found.ok());
  EXPECT_NE(found.status().message().find("another server"), std::string::npos);
  EXPECT_EQ(h.http.requests.size(), 1u);
}

TEST(CiPosterTest, WithABotLoginOthersMarkedCommentsAreIgnored) {
  Harness h;
  h.config.author = "cannbot[bot]";
  nlohmann::json page = Comments(1, 2);
  page[0]["body"] = kBody;  // someone quoting the bot, marker and all
  page[0]["user"] = {{"login", "mallory"}};
  page[1]["body"] = std::string(kCommentMarker) + "\nold";
  page[1]["user"] = {{"login", "cannbot[bot]"}};
  h.http.script = {{200, page, {}}, {200, {{"id", 2}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kUpdated);
  EXPECT_EQ(posted->id, "2");
}

TEST(CiPosterTest, AnIdThatCouldChangeTheUrlIsNotTrusted) {
  Harness h(Forge::kGitCode);
  nlohmann::json page = Comments(1, 1);
  page[0]["body"] = kBody;
  page[0]["id"] = "../../pulls/1";
  h.http.script = {{200, page, {}}, {201, {{"id", 9}}, {}}};
  auto posted = h.Poster().Upsert(kBody);
  ASSERT_TRUE(posted.ok()) << posted.status().ToString();
  EXPECT_EQ(posted->action, PostResult::Action::kCreated);
  for (const auto& r : h.http.requests) EXPECT_EQ(r.url.find(".."), std::string::npos);
}

TEST(CiPosterTest, NoKernelsOnlyUpdatesAnExistingComment) {
  Harness h;
  h.http.script = {{200, Comments(1, 1), {}}};
  auto posted = h.Poster().Upsert(kBody, /*create=*/false);
  ASSERT_TRUE(posted.ok());
  EXPECT_EQ(posted->action, PostResult::Action::kNothingToUpdate);
  EXPECT_EQ(h.http.requests.size(), 1u);
}

TEST(CiPosterTest, ConfigIsCheckedBeforeAnyRequest) {
  Harness h;
  h.config.repo = "acme/../x";
  EXPECT_FALSE(h.Poster().CheckConfig().ok());
  h.config.repo = "acme/kernels";
  h.config.token = "";
  EXPECT_NE(h.Poster().CheckConfig().message().find("$GITHUB_TOKEN is empty or unset"),
            std::string::npos);
  h.config.token = kToken;
  h.config.pr = 0;
  EXPECT_FALSE(h.Poster().CheckConfig().ok());
  h.config.pr = 3;
  EXPECT_TRUE(h.Poster().CheckConfig().ok());
  EXPECT_TRUE(h.http.requests.empty());
}

}  // namespace
}  // namespace cannbot::ci
