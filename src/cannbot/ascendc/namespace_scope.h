// NamespaceScope: reading C++ source at namespace scope without a parser, for the tools that
// need to know what a file defines there (host_units.h: names two host units share;
// program_text.h: which functions are host code).
//
// CodeOnly blanks comments, preprocessor lines (with their continuations) and the insides of
// string and character literals, keeping every other character where it was, so positions in
// it are positions in the source. WalkNamespaceScope then meets each statement at namespace
// scope in order: one ending in `;`, or one opening a block; a block that is not a namespace's
// (`namespace X {`, `extern "C" {`) is skipped whole, a namespace's is read through.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cannbot::ascendc {

// `directive`, when given, gets one flag per character: part of a preprocessor line.
std::string CodeOnly(const std::string& code, std::vector<bool>* directive = nullptr);

// Whether `s` begins (after blanks) with `word` as a whole word.
bool StartsWithWord(const std::string& s, const std::string& word);

// `namespace X {`, `namespace {`, `extern "C" {`: a block whose contents are at namespace scope.
bool OpensNamespace(const std::string& statement);

struct ScopeStatement {
  std::string text;  // from after the previous statement up to its `;` or `{` (not included)
  size_t begin = 0;  // where `text` starts in the code
  size_t end = 0;    // its `;`, a namespace's `{`, or the `}` that closes its block
  bool block = false;      // it opened a block (a definition, or a namespace)
  bool namespace_ = false;  // that block is a namespace's, read through
};

// Visits the statements of `code_only` (CodeOnly's output). Stops at a block that never
// closes (a definition split across #if branches) and returns false; true when it read all.
bool WalkNamespaceScope(const std::string& code_only,
                        const std::function<void(const ScopeStatement&)>& visit);

}  // namespace cannbot::ascendc
