// Path globs for the CI bot's repository config: which files of a repository are kernels of
// which op.
//
// A glob matches a whole repository-relative path ('/'-separated, no leading slash):
//   *      any run of characters except '/'
//   **     any run of characters including '/'; "**/" also matches no directory at all, so
//          "ops/**/*.cpp" matches "ops/add.cpp" and "ops/a/b/add.cpp"
//   ?      one character except '/'
//   [abc]  [a-z]  [!abc]  one character of (or not of) a set; never '/'
//   \x     the character x itself
// Unlike .gitignore, a pattern without '/' does not match at any depth: "*.cpp" is a file at
// the root only. Whole-path matching keeps a config readable without knowing those rules.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "cannbot/util/status.h"

namespace cannbot::ci {

// Whether `path` matches `pattern`. Memoised: polynomial time however many stars it has.
bool GlobMatch(std::string_view pattern, std::string_view path);

// InvalidArgument naming the problem for patterns that cannot be what the author meant: empty,
// absolute, an unterminated [set], or a trailing backslash.
Status CheckGlob(std::string_view pattern);

}  // namespace cannbot::ci
