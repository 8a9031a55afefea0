#include "cannbot/ci/poster.h"

#include <cctype>

#include "cannbot/ci/comment.h"

namespace cannbot::ci {
namespace {

ApiConfig MakeApiConfig(const PosterConfig& c) {
  ApiConfig api;
  api.service = ForgeName(c.forge);
  api.token = c.token;
  api.token_source = c.token_source;
  api.retry = c.retry;
  api.sleep = c.sleep;
  api.now = c.now;
  api.log = c.log;
  api.headers = {{"User-Agent", "cannbot-ci"}};
  if (c.forge == Forge::kGitHub) {
    api.auth_headers = {{"Authorization", "Bearer "}};
    api.headers.emplace_back("Accept", "application/vnd.github+json");
    api.headers.emplace_back("X-GitHub-Api-Version", "2022-11-28");
  } else {
    // GitCode documents PRIVATE-TOKEN and also takes a bearer token; its access_token query
    // parameter is never used, since a URL ends up in logs.
    api.auth_headers = {{"PRIVATE-TOKEN", ""}, {"Authorization", "Bearer "}};
    api.headers.emplace_back("Accept", "application/json");
  }
  return api;
}

// "https://host:port" of a URL ("" when it has no scheme).
std::string Origin(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return "";
  return url.substr(0, url.find('/', scheme + 3));
}

// The rel="next" target of an RFC 8288 Link header, or "".
std::string NextLink(const std::string& header) {
  size_t at = 0;
  while ((at = header.find('<', at)) != std::string::npos) {
    const size_t close = header.find('>', at);
    if (close == std::string::npos) return "";
    const size_t end = header.find('<', close);
    const std::string params =
        header.substr(close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos ||
        params.find("rel=next") != std::string::npos) {
      return header.substr(at + 1, close - at - 1);
    }
    at = close;
  }
  return "";
}

std::string IdOf(const nlohmann::json& comment) {
  if (!comment.is_object() || !comment.contains("id")) return "";
  const nlohmann::json& id = comment["id"];
  if (id.is_number_integer()) return std::to_string(id.get<int64_t>());
  if (!id.is_string()) return "";
  // The id becomes part of a URL path: nothing but letters, digits, '-' and '_'.
  const std::string text = id.get<std::string>();
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return "";
  }
  return text;
}

std::string StringField(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool SafeSegment(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

std::string Author(const nlohmann::json& comment) {
  return comment.is_object() && comment.contains("user") ? StringField(comment["user"], "login")
                                                         : "";
}

}  // namespace

const char* ForgeName(Forge forge) { return forge == Forge::kGitHub ? "GitHub" : "GitCode"; }

std::string DefaultApiUrl(Forge forge) {
  return forge == Forge::kGitHub ? "https://api.github.com" : "https://api.gitcode.com/api/v5";
}

CommentPoster::CommentPoster(PosterConfig config, llm::HttpClient* http)
    : config_(std::move(config)), api_(MakeApiConfig(config_), http) {
  if (config_.api_url.empty()) config_.api_url = DefaultApiUrl(config_.forge);
}

Status CommentPoster::CheckConfig() const {
  const size_t slash = config_.repo.find('/');
  if (slash == std::string::npos || !SafeSegment(config_.repo.substr(0, slash)) ||
      !SafeSegment(config_.repo.substr(slash + 1))) {
    return Status::InvalidArgument("repository '" + config_.repo + "' is not OWNER/NAME");
  }
  if (config_.pr <= 0) return Status::InvalidArgument("no pull request number (--pr N)");
  if (config_.api_url.rfind("https://", 0) != 0 && config_.api_url.rfind("http://", 0) != 0) {
    return Status::InvalidArgument("API URL '" + config_.api_url + "' is not an http(s) URL");
  }
  if (config_.token.empty()) {
    return Status::InvalidArgument(
        std::string("no ") + ForgeName(config_.forge) + " token" +
        (config_.token_source.empty() ? "" : ": " + config_.token_source + " is empty or unset"));
  }
  return Status::Ok();
}

std::string CommentPoster::Base() const {
  std::string base = config_.api_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/repos/" + config_.repo;
}

std::string CommentPoster::ListUrl() const {
  const std::string pr = std::to_string(config_.pr);
  return Base() + (config_.forge == Forge::kGitHub ? "/issues/" : "/pulls/") + pr + "/comments";
}

std::string CommentPoster::UpdateUrl(const std::string& id) const {
  return Base() + (config_.forge == Forge::kGitHub ? "/issues/comments/" : "/pulls/comments/") + id;
}

Result<std::optional<ExistingComment>> CommentPoster::Find() {
  const std::string per_page = "per_page=" + std::to_string(config_.per_page);
  std::string url =
      ListUrl() + "?" + per_page + (config_.forge == Forge::kGitCode ? "&page=1" : "");
  for (int page = 1; page <= config_.max_pages; ++page) {
    CANNBOT_ASSIGN_OR_RETURN(ApiResponse response, api_.Call("GET", url));
    if (!response.json.is_array()) {
      return Status::Unavailable(std::string(ForgeName(config_.forge)) + " API: GET " + url +
                                 " did not answer with a list of comments");
    }
    for (const nlohmann::json& comment : response.json) {
      const std::string body = StringField(comment, "body");
      const bool ours = config_.author.empty() || Author(comment) == config_.author;
      if (IsBotComment(body) && ours && !IdOf(comment).empty()) {
        return std::optional<ExistingComment>(
            ExistingComment{IdOf(comment), body, StringField(comment, "html_url")});
      }
    }
    auto link = response.headers.find("link");
    const std::string next = link == response.headers.end() ? "" : NextLink(link->second);
    if (!next.empty()) {
      if (Origin(next) != Origin(config_.api_url)) {
        return Status::Unavailable(std::string(ForgeName(config_.forge)) +
                                   " API: the next page of comments is on another server (" +
                                   Origin(next) + "); not following it with the token");
      }
      url = next;
    } else if (config_.forge == Forge::kGitCode &&
               response.json.size() >= static_cast<size_t>(config_.per_page)) {
      url = ListUrl() + "?" + per_page + "&page=" + std::to_string(page + 1);
    } else {
      return std::optional<ExistingComment>();
    }
  }
  return Status::Unavailable("the pull request has more than " + std::to_string(config_.max_pages) +
                             " pages of comments; not looking further, and not posting (the "
                             "bot's comment may be among them)");
}

Result<PostResult> CommentPoster::Update(const ExistingComment& existing, const std::string& body) {
  if (existing.body == body) {
    return PostResult{PostResult::Action::kUnchanged, existing.id, existing.url};
  }
  CANNBOT_ASSIGN_OR_RETURN(ApiResponse response,
                           api_.Call("PATCH", UpdateUrl(existing.id), {{"body", body}}));
  std::string url = StringField(response.json, "html_url");
  return PostResult{PostResult::Action::kUpdated, existing.id, url.empty() ? existing.url : url};
}

Result<PostResult> CommentPoster::Upsert(const std::string& body, bool create) {
  const std::string url = ListUrl();
  for (int attempt = 0;; ++attempt) {
    // Listed afresh on every attempt: a POST that seemed to fail may have landed.
    CANNBOT_ASSIGN_OR_RETURN(std::optional<ExistingComment> existing, Find());
    if (existing) return Update(*existing, body);
    if (!create) return PostResult{PostResult::Action::kNothingToUpdate, "", ""};
    const bool last = attempt + 1 >= config_.max_post_attempts;
    auto sent = api_.SendOnce("POST", url, {{"body", body}});
    Judgement judgement;
    std::string what = "POST " + url;
    if (sent.ok()) {
      judgement = api_.Judge(*sent);
      if (judgement.kind == Judgement::Kind::kOk) {
        return PostResult{PostResult::Action::kCreated, IdOf(sent->json),
                          StringField(sent->json, "html_url")};
      }
      if (judgement.kind == Judgement::Kind::kFail || last) {
        return api_.ErrorFor("POST", url, *sent);
      }
      what += " answered " + std::to_string(sent->status);
    } else {
      what += " failed: " + sent.status().message();
      if (last) {
        return Status::Unavailable(api_.Redact(std::string(ForgeName(config_.forge)) +
                                               " API: " + what + " (gave up after " +
                                               std::to_string(attempt + 1) + " attempts)"));
      }
      judgement.kind = Judgement::Kind::kRetry;
    }
    CANNBOT_RETURN_IF_ERROR(api_.Wait(judgement, attempt, what));
  }
}

}  // namespace cannbot::ci
