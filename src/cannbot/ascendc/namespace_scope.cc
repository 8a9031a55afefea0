#include "cannbot/ascendc/namespace_scope.h"

#include <cctype>

#include "cannbot/ascendc/package.h"

namespace cannbot::ascendc {

bool StartsWithWord(const std::string& s, const std::string& word) {
  const size_t at = s.find_first_not_of(" \t\n");
  if (at == std::string::npos || s.compare(at, word.size(), word) != 0) return false;
  const size_t after = at + word.size();
  return after == s.size() ||
         !(std::isalnum(static_cast<unsigned char>(s[after])) || s[after] == '_');
}

std::string CodeOnly(const std::string& code, std::vector<bool>* directive_at) {
  std::string out = WithoutComments(code);
  if (directive_at != nullptr) directive_at->assign(out.size(), false);
  bool line_start = true, directive = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '\n') {
      const bool continued = directive && i > 0 && out[i - 1] == '\\';
      directive = continued;
      line_start = true;
      continue;
    }
    if (line_start && c == '#') directive = true;
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (directive) {
      out[i] = ' ';
      if (directive_at != nullptr) (*directive_at)[i] = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      for (size_t j = i + 1; j < out.size() && out[j] != '\n'; ++j) {
        if (out[j] == '\\') {
          out[j] = ' ';
          if (j + 1 < out.size() && out[j + 1] != '\n') out[++j] = ' ';
          continue;
        }
        if (out[j] == c) {
          i = j;
          break;
        }
        out[j] = ' ';
      }
    }
  }
  return out;
}

bool OpensNamespace(const std::string& statement) {
  if (StartsWithWord(statement, "namespace")) return true;
  if (StartsWithWord(statement, "inline")) {
    const size_t after = statement.find("inline") + 6;
    return StartsWithWord(statement.substr(after), "namespace");
  }
  if (!StartsWithWord(statement, "extern")) return false;
  const size_t rest = statement.find("extern") + 6;
  return statement.find_first_not_of(" \t\n\"", rest) == std::string::npos;
}

bool WalkNamespaceScope(const std::string& code_only,
                        const std::function<void(const ScopeStatement&)>& visit) {
  const std::string& s = code_only;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '}') {  // a namespace's end
      begin = i + 1;
      continue;
    }
    if (c != ';' && c != '{') continue;
    ScopeStatement statement;
    statement.text = s.substr(begin, i - begin);
    statement.begin = begin;
    statement.end = i;
    statement.block = c == '{';
    statement.namespace_ = statement.block && OpensNamespace(statement.text);
    if (statement.block && !statement.namespace_) {
      int depth = 0;
      size_t close = i;
      for (; close < s.size(); ++close) {
        depth += s[close] == '{' ? 1 : s[close] == '}' ? -1 : 0;
        if (depth == 0) break;
      }
      if (close == s.size()) return false;
      statement.end = close;
    }
    visit(statement);
    i = statement.end;
    begin = i + 1;
  }
  return true;
}

}  // namespace cannbot::ascendc
