#include "cannbot/ascendc/program_text.h"

#include <cctype>
#include <regex>

#include "cannbot/ascendc/namespace_scope.h"

namespace cannbot::ascendc {
namespace {

struct Chevron {
  size_t name = 0;    // where the kernel's name starts
  size_t open = 0;    // the `<<<`
  size_t close = 0;   // the `>>>`
  std::string kernel; // without template arguments
};

std::vector<Chevron> FindChevrons(const std::string& code) {
  std::vector<Chevron> found;
  for (size_t at = code.find("<<<"); at != std::string::npos; at = code.find("<<<", at + 3)) {
    Chevron c;
    c.open = at;
    c.close = code.find(">>>", at + 3);
    if (c.close == std::string::npos) break;
    size_t k = at;
    while (k > 0 && std::isspace(static_cast<unsigned char>(code[k - 1]))) --k;
    if (k > 0 && code[k - 1] == '>') {  // template arguments: back to their `<`
      int depth = 0;
      while (k > 0) {
        --k;
        if (code[k] == '>') ++depth;
        if (code[k] == '<' && --depth == 0) break;
      }
      while (k > 0 && std::isspace(static_cast<unsigned char>(code[k - 1]))) --k;
    }
    const size_t name_end = k;
    while (k > 0 && (std::isalnum(static_cast<unsigned char>(code[k - 1])) || code[k - 1] == '_' ||
                     code[k - 1] == ':')) {
      --k;
    }
    if (k == name_end) continue;  // not a launch (a shift in some expression)
    c.name = k;
    c.kernel = code.substr(k, name_end - k);
    const size_t colon = c.kernel.rfind(':');
    if (colon != std::string::npos) c.kernel = c.kernel.substr(colon + 1);
    found.push_back(c);
    at = c.close;
  }
  return found;
}

// The name a function definition's head declares ("" when `head` is no function head): it
// ends in its parameter list (after which only qualifiers or a trailing return type), and is
// neither a type's definition nor an initializer (`auto f = [](int) {`).
std::string DefinedFunction(const std::string& head) {
  static const std::regex kTail(
      R"(\)(\s*(const|volatile|noexcept|override|final|&|&&|noexcept\s*\([^)]*\)))*\s*(->[^{};]*)?\s*$)");
  static const std::regex kType(R"(^\s*(template\s*<.*>\s*)?(class|struct|union|enum)\b)");
  static const std::regex kOperatorName(R"(\boperator\s*[^\s(]+)");
  std::smatch tail;
  if (!std::regex_search(head, tail, kTail) || std::regex_search(head, kType)) return "";
  const std::string before_tail = head.substr(0, static_cast<size_t>(tail.position(0)) + 1);
  // The parameter list: back from its `)` to the matching `(`.
  int depth = 0;
  size_t k = before_tail.size();
  while (k > 0) {
    --k;
    if (before_tail[k] == ')') ++depth;
    if (before_tail[k] == '(' && --depth == 0) break;
  }
  const std::string declarator = std::regex_replace(before_tail.substr(0, k), kOperatorName, "op");
  depth = 0;
  for (const char c : declarator) {  // an `=` outside brackets: an initializer, not a function
    depth += c == '(' || c == '<' || c == '[';
    depth -= c == ')' || c == '>' || c == ']';
    if (c == '=' && depth <= 0) return "";
  }
  size_t end = declarator.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = end + 1;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(declarator[start - 1])) ||
                       declarator[start - 1] == '_')) {
    --start;
  }
  return declarator.substr(start, end + 1 - start);
}

bool IsDeviceOrConstant(const std::string& head) {
  static const std::regex kMarked(
      R"(\b(__aicore__|__global__|__vector__|__cube__|__mix__|__simd_vf__|__simd_callee__|constexpr|consteval)\b)");
  return std::regex_search(head, kMarked);
}

}  // namespace

std::string RewriteChevrons(const std::string& text) {
  std::string out;
  size_t copied = 0;
  for (const Chevron& c : FindChevrons(CodeOnly(text))) {
    out += text.substr(copied, c.name - copied) + "CANNBOT_CHEVRON(" +
           text.substr(c.name, c.open - c.name) + ")(" +
           text.substr(c.open + 3, c.close - c.open - 3) + ")";
    copied = c.close + 3;
  }
  return out + text.substr(copied);
}

std::vector<std::string> ChevronLaunched(const std::string& text) {
  std::vector<std::string> names;
  for (const Chevron& c : FindChevrons(CodeOnly(text))) {
    bool seen = false;
    for (const std::string& n : names) seen = seen || n == c.kernel;
    if (!seen) names.push_back(c.kernel);
  }
  return names;
}

std::string WithoutHostFunctions(const std::string& text) {
  std::vector<bool> directive;  // a blanked function keeps its directives: #if meets #endif
  const std::string code = CodeOnly(text, &directive);
  const std::vector<std::string> launched = ChevronLaunched(text);
  std::string out = text;
  const bool read_all = WalkNamespaceScope(code, [&](const ScopeStatement& statement) {
    if (!statement.block || statement.namespace_) return;
    const std::string name = DefinedFunction(statement.text);
    bool kernel = false;
    for (const std::string& k : launched) kernel = kernel || k == name;
    if (name.empty() || kernel || IsDeviceOrConstant(statement.text)) return;
    const size_t from = code.find_first_not_of(" \t\r\n", statement.begin);
    for (size_t k = from; k <= statement.end; ++k) {
      if (out[k] != '\n' && !directive[k]) out[k] = ' ';
    }
  });
  return read_all ? out : text;  // a block that never closes: the text as it is
}

std::string DevicePartOfHeader(const std::string& text) {
  std::string out = WithoutHostFunctions(text);
  if (CodeOnly(out).find_first_not_of(" \t\r\n") != std::string::npos) return out;
  static const std::regex kInclude(R"(^[ \t]*#[ \t]*include\b[^\n]*)", std::regex::multiline);
  std::string blanked;
  size_t copied = 0;
  for (std::sregex_iterator it(out.begin(), out.end(), kInclude), end; it != end; ++it) {
    const size_t at = static_cast<size_t>(it->position(0));
    blanked += out.substr(copied, at - copied) + std::string(it->length(0), ' ');
    copied = at + static_cast<size_t>(it->length(0));
  }
  return blanked + out.substr(copied);
}

bool IsInstantiationName(const std::string& name) {
  static const std::regex kName(R"([A-Za-z_][\w:]*(<[\w:<>, ()+\-.&*]*>)?)");
  return name.size() <= 512 && std::regex_match(name, kName);
}

}  // namespace cannbot::ascendc
