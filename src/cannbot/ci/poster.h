// CommentPoster: keeps exactly one cannbot comment on a pull request, on GitHub or GitCode.
//
//   list the pull request's comments, every page (GitHub: Link rel="next"; GitCode: the same,
//   else page=N until a short page) -> the first comment beginning with the marker
//   (and written by PosterConfig::author, when set)
//   -> PATCH it (unchanged bodies are left alone), or POST a new one
//
// No duplicates, even when things fail half-way: nothing is posted unless every page of
// comments was read; a POST is never repeated blindly (after a 5xx or a lost connection
// the comments are listed again, since the first POST may have landed). Pagination links
// are followed only to the API's own origin, so the token never travels elsewhere.
//
// Endpoints (relative to the API base URL):
//   GitHub   GET/POST repos/{repo}/issues/{pr}/comments    PATCH repos/{repo}/issues/comments/{id}
//   GitCode  GET/POST repos/{repo}/pulls/{pr}/comments     PATCH repos/{repo}/pulls/comments/{id}
//
// Ownership: borrows the HttpClient. Thread-safety: one call at a time per poster.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cannbot/ci/api_client.h"

namespace cannbot::ci {

enum class Forge { kGitHub, kGitCode };

struct PosterConfig {
  Forge forge = Forge::kGitHub;
  std::string api_url;       // "" = https://api.github.com or https://api.gitcode.com/api/v5
  std::string repo;          // "owner/name"
  int64_t pr = 0;            // pull request number
  std::string token;         // secret, never printed
  std::string token_source;  // "$GITHUB_TOKEN", for messages
  // Only comments by this login count as the bot's ("" = any comment beginning with the
  // marker). Set it on public repositories, where anyone can post the marker.
  std::string author;
  int per_page = 100;         // the most both APIs allow
  int max_pages = 100;        // 10,000 comments: a pull request with more is not one to comment on
  int max_post_attempts = 3;  // POSTs that failed in a way that may have created the comment
  RetryPolicy retry;
  // Test hooks, as in ApiConfig.
  std::function<void(std::chrono::milliseconds)> sleep;
  std::function<int64_t()> now;
  std::function<void(const std::string&)> log;
};

struct ExistingComment {
  std::string id;  // as the API spells it (a number on GitHub)
  std::string body;
  std::string url;  // for people, when the API gives one
};

struct PostResult {
  enum class Action { kCreated, kUpdated, kUnchanged, kNothingToUpdate } action;
  std::string id;
  std::string url;
};

const char* ForgeName(Forge forge);  // "GitHub", "GitCode"
std::string DefaultApiUrl(Forge forge);

class CommentPoster {
 public:
  CommentPoster(PosterConfig config, llm::HttpClient* http);

  // InvalidArgument for a malformed repo, PR number or API URL, or an empty token.
  Status CheckConfig() const;

  // The bot's comment, if the pull request has one. Errors as ApiClient::Call.
  Result<std::optional<ExistingComment>> Find();

  // Updates the bot's comment to `body` or creates it. With `create = false` a missing
  // comment is left missing (nothing worth a new comment).
  Result<PostResult> Upsert(const std::string& body, bool create = true);

 private:
  std::string Base() const;  // API URL without a trailing slash
  std::string ListUrl() const;
  std::string UpdateUrl(const std::string& id) const;
  Result<PostResult> Update(const ExistingComment& existing, const std::string& body);

  PosterConfig config_;
  ApiClient api_;
};

}  // namespace cannbot::ci
