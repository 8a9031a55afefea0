#include "cannbot/ci/glob.h"

#include <string>
#include <vector>

namespace cannbot::ci {
namespace {

// Matches one [set] at pattern[p] (pattern[p] == '[') against c. Sets `end` to the index just
// past the closing ']'; returns false for an unterminated set (then `end` is npos).
bool MatchSet(std::string_view pattern, size_t p, char c, size_t* end) {
  size_t i = p + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  for (; i < pattern.size(); ++i) {
    if (pattern[i] == ']' && !first) {
      *end = i + 1;
      return c != '/' && found != negate;
    }
    first = false;
    char lo = pattern[i];
    if (lo == '\\' && i + 1 < pattern.size()) lo = pattern[++i];
    char hi = lo;
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      size_t j = i + 2;
      if (pattern[j] == '\\' && j + 1 < pattern.size()) ++j;
      hi = pattern[j];
      i = j;
    }
    if (lo <= c && c <= hi) found = true;
  }
  *end = std::string_view::npos;
  return false;
}

// Memoised matcher over (pattern index, path index): each pair is decided once, so patterns
// with many stars cannot take exponential time.
class Matcher {
 public:
  Matcher(std::string_view pattern, std::string_view path)
      : pattern_(pattern), path_(path), memo_((pattern.size() + 1) * (path.size() + 1), kUnknown) {}

  bool Match(size_t p, size_t s) {
    char& memo = memo_[p * (path_.size() + 1) + s];
    if (memo == kUnknown) memo = Decide(p, s) ? kYes : kNo;
    return memo == kYes;
  }

 private:
  static constexpr char kUnknown = 0, kYes = 1, kNo = 2;

  bool Decide(size_t p, size_t s) {
    if (p == pattern_.size()) return s == path_.size();
    const char c = pattern_[p];
    if (c == '*') {
      const bool double_star = p + 1 < pattern_.size() && pattern_[p + 1] == '*';
      if (double_star) {
        size_t next = p + 2;
        // "**/" may stand for no directory at all.
        if (next < pattern_.size() && pattern_[next] == '/' && Match(next + 1, s)) return true;
        for (size_t k = s; k <= path_.size(); ++k) {
          if (Match(next, k)) return true;
        }
        return false;
      }
      for (size_t k = s; k <= path_.size(); ++k) {
        if (Match(p + 1, k)) return true;
        if (k < path_.size() && path_[k] == '/') break;
      }
      return false;
    }
    if (s == path_.size()) return false;
    if (c == '?') return path_[s] != '/' && Match(p + 1, s + 1);
    if (c == '[') {
      size_t end = 0;
      const bool ok = MatchSet(pattern_, p, path_[s], &end);
      if (end == std::string_view::npos) return path_[s] == '[' && Match(p + 1, s + 1);
      return ok && Match(end, s + 1);
    }
    if (c == '\\' && p + 1 < pattern_.size()) {
      return path_[s] == pattern_[p + 1] && Match(p + 2, s + 1);
    }
    return path_[s] == c && Match(p + 1, s + 1);
  }

  std::string_view pattern_;
  std::string_view path_;
  std::vector<char> memo_;
};

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view path) {
  return Matcher(pattern, path).Match(0, 0);
}

Status CheckGlob(std::string_view pattern) {
  const std::string quoted = "glob '" + std::string(pattern) + "'";
  if (pattern.empty()) return Status::InvalidArgument("a glob is empty");
  if (pattern.front() == '/') {
    return Status::InvalidArgument(quoted +
                                   " is absolute; globs are relative to the repository root");
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (i + 1 == pattern.size()) {
        return Status::InvalidArgument(quoted + " ends with a backslash");
      }
      ++i;
    } else if (pattern[i] == '[') {
      size_t end = 0;
      MatchSet(pattern, i, 'a', &end);
      if (end == std::string_view::npos) {
        return Status::InvalidArgument(quoted + " has a '[' without its closing ']'");
      }
      i = end - 1;
    }
  }
  return Status::Ok();
}

}  // namespace cannbot::ci
