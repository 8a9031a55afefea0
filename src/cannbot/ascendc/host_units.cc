#include "cannbot/ascendc/host_units.h"

#include "cannbot/ascendc/namespace_scope.h"

#include <cctype>
#include <map>

namespace cannbot::ascendc {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifier that ends just before `end` (skipping spaces); "" when none.
std::string IdentifierBefore(const std::string& s, size_t end) {
  while (end > 0 && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  size_t start = end;
  while (start > 0 && IsIdentChar(s[start - 1])) --start;
  if (start == end || std::isdigit(static_cast<unsigned char>(s[start]))) return "";
  // `Foo::Bar`: a member of something declared elsewhere, not a new name here.
  size_t before = start;
  while (before > 0 && std::isspace(static_cast<unsigned char>(s[before - 1]))) --before;
  if (before >= 2 && s[before - 1] == ':' && s[before - 2] == ':') return "";
  return s.substr(start, end - start);
}

// The first top-level (outside <>, (), []) position of `c` in `s`, npos when none.
size_t TopLevel(const std::string& s, char c) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && s[i] == c) return i;
    if (s[i] == '(' || s[i] == '[' || s[i] == '<') ++depth;
    if (s[i] == ')' || s[i] == ']' || s[i] == '>') --depth;
  }
  return std::string::npos;
}

// The word after the first of `keywords` in `s` ("struct X : Y" -> "X").
std::string NameAfterKeyword(const std::string& s) {
  for (const char* keyword : {"struct", "class", "union", "enum"}) {
    const std::string k = keyword;
    for (size_t at = s.find(k); at != std::string::npos; at = s.find(k, at + 1)) {
      if ((at > 0 && IsIdentChar(s[at - 1])) || IsIdentChar(s[at + k.size()])) continue;
      size_t p = at + k.size();
      std::string name;
      for (int words = 0; words < 2 && name.empty(); ++words) {  // enum class X
        while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
        const size_t start = p;
        while (p < s.size() && IsIdentChar(s[p])) ++p;
        name = s.substr(start, p - start);
        if (name == "class" || name == "struct") name.clear();
      }
      return name;
    }
  }
  return "";
}

// The variable whose initializer starts at `equals` (`T a[N] = ...` is `a`).
std::string VariableBefore(const std::string& statement, size_t equals) {
  size_t end = equals;
  while (end > 0 && std::isspace(static_cast<unsigned char>(statement[end - 1]))) --end;
  if (end > 0 && statement[end - 1] == ']') end = statement.rfind('[', end);
  return end == std::string::npos ? "" : IdentifierBefore(statement, end);
}

// `statement` without a leading `template <...>`.
std::string WithoutTemplateHead(const std::string& statement) {
  if (!StartsWithWord(statement, "template")) return statement;
  const size_t open = statement.find('<');
  if (open == std::string::npos) return statement;
  int depth = 0;
  for (size_t i = open; i < statement.size(); ++i) {
    depth += statement[i] == '<' ? 1 : statement[i] == '>' ? -1 : 0;
    if (depth == 0) return statement.substr(i + 1);
  }
  return statement;
}

// A name the preprocessor may not be asked to rename.
bool IsKeyword(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "operator", "return", "const", "constexpr", "static", "inline", "auto", "void", "int",
      "bool", "char", "float", "double", "long", "short", "unsigned", "signed", "struct",
      "class", "enum", "union", "template", "typename", "using", "namespace", "extern", "if",
      "else", "for", "while", "switch", "case", "default", "do", "sizeof", "decltype", "new",
      "delete", "this", "true", "false", "nullptr", "volatile", "virtual", "override", "final"};
  return kKeywords.count(name) > 0;
}

// What a namespace-scope statement that opens a brace defines ("" when nothing new).
std::string DefinedByBlock(const std::string& whole) {
  if (OpensNamespace(whole) || whole.find("operator") != std::string::npos) return "";
  const std::string statement = WithoutTemplateHead(whole);
  const size_t equals = TopLevel(statement, '=');
  if (equals != std::string::npos) return VariableBefore(statement, equals);  // T x = {...}
  const size_t paren = TopLevel(statement, '(');
  const std::string type = NameAfterKeyword(statement);
  if (!type.empty() && (paren == std::string::npos || statement.find(type) < paren)) return type;
  if (paren != std::string::npos) return IdentifierBefore(statement, paren);  // a function
  return IdentifierBefore(statement, statement.size());  // T list{1, 2}
}

// What a namespace-scope statement ending in ';' defines ("" for declarations and calls).
std::string DefinedByStatement(const std::string& whole) {
  if (StartsWithWord(whole, "namespace") || whole.find("operator") != std::string::npos) {
    return "";
  }
  const std::string statement = WithoutTemplateHead(whole);
  const size_t equals = TopLevel(statement, '=');
  if (equals == std::string::npos) return "";
  if (StartsWithWord(statement, "using")) {
    return IdentifierBefore(statement, equals);
  }
  return VariableBefore(statement, equals);
}

}  // namespace

std::set<std::string> NamespaceScopeDefinitions(const std::string& code) {
  std::set<std::string> names;
  WalkNamespaceScope(CodeOnly(code), [&](const ScopeStatement& statement) {
    const std::string defined = statement.block ? DefinedByBlock(statement.text)
                                                : DefinedByStatement(statement.text);
    if (!defined.empty() && !IsKeyword(defined)) names.insert(defined);
  });
  return names;
}

std::vector<std::vector<std::string>> NamesToRenamePerUnit(const std::vector<std::string>& units,
                                                           const std::set<std::string>& keep) {
  std::vector<std::set<std::string>> defined;
  std::map<std::string, int> count;
  for (const std::string& unit : units) {
    defined.push_back(NamespaceScopeDefinitions(unit));
    for (const std::string& name : defined.back()) ++count[name];
  }
  std::vector<std::vector<std::string>> renamed(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    for (const std::string& name : defined[u]) {
      if (count[name] > 1 && keep.count(name) == 0) renamed[u].push_back(name);
    }
  }
  return renamed;
}

}  // namespace cannbot::ascendc
