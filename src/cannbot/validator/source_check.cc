#include "cannbot/validator/source_check.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

namespace cannbot::validator {
namespace {

struct Rule {
  const char* what;
  const char* pattern;  // ECMAScript regex over code with comments and strings blanked
  // A call qualified by std:: is what the rule means (std::thread, std::exit); false where
  // std:: names something harmless (std::bind is not the socket call).
  bool std_qualified_counts = true;
  // Code under `#ifdef _OPENMP` is never compiled: cannbot does not pass -fopenmp.
  bool skips_openmp_only_code = false;
  // The rule is about definitions, so a match after a type name counts.
  bool matches_definitions = false;
};

// Word boundaries keep `fopen` from matching `my_fopen_like_name`. `#pragma omp` is not a
// rule: kernels are built with -fopenmp-simd and without the OpenMP runtime, so `omp simd`
// vectorises and `omp parallel` compiles to single-threaded code (compiler.cc).
const Rule kRules[] = {
    // std::thread::hardware_concurrency() and std::thread::id start nothing, nor does
    // std::async(std::launch::deferred, ...), which runs the task in the caller on get().
    {"creates threads",
     R"(\bstd\s*::\s*(thread\b(?!\s*::)|jthread\b|async\b(?!\s*\(\s*std\s*::\s*launch\s*::\s*deferred\s*,))|\bpthread_create\b)"},
    // Would need -fopenmp and libgomp; the link (--no-undefined) fails anyway, less clearly.
    // The runtime's own names (omp_get_*, omp_set_*, the locks, omp_in_parallel): a kernel's
    // helper named omp_thread_count is not a hit, nor a name the file #defines (the
    // portable `#define omp_get_thread_num() 0` stub).
    {"uses the OpenMP runtime (threads)", R"(\bomp_(get|set|init|destroy|unset|test|in)_[a-z_]+\s*\(|#\s*include\s*<\s*omp\.h\s*>)", true, true},
    {"starts processes", R"(\b(fork|_Fork|vfork|system|popen|posix_spawnp?|exec[lv]p?e?|fexecve|execveat|clone3?)\s*\()"},
    {"opens files", R"(\b(fopen|fopen64|freopen|fdopen|open|open64|openat|openat64|creat|creat64|opendir)\s*\(|\bstd\s*::\s*(i|o)?fstream\b|\bstd\s*::\s*filesystem\b|\b(ifstream|ofstream|fstream)\b)"},
    {"uses the network", R"(\b(socket|socketpair|connect|bind|listen|accept|accept4|getaddrinfo|gethostbyname)\s*\()", false},
    {"handles or sends signals", R"(\b(signal|sigaction|sigprocmask|pthread_sigmask|raise|kill|killpg|tgkill|pthread_kill|sigqueue|sigaltstack)\s*\()"},
    // abort() is left to the sandbox (SIGABRT): honest kernels call it on a failed allocation.
    {"ends the process", R"(\b(exit|_exit|_Exit|quick_exit|terminate)\s*\()"},
    {"makes raw system calls", R"(\bsyscall\s*\()"},
    {"loads code at run time", R"(\b(dlopen|dlsym|dlvsym|dlmopen)\s*\()"},
    {"sleeps", R"(\b(sleep|usleep|nanosleep|clock_nanosleep)\s*\(|\bsleep_for\b|\bsleep_until\b)"},
    {"uses cannbot's reserved names", R"(\bcannbot\w*)"},
    {"redefines timing or comparison functions", R"(\b(clock_gettime|gettimeofday|memcmp|bcmp)\s*\([^;{)]*\)\s*(noexcept\s*)?\{)", true, false, true},
};

// 4'096: a quote between two hex digits inside a number is a digit separator (C++14).
bool IsDigitSeparator(const std::string& code, size_t i) {
  return i > 0 && i + 1 < code.size() && std::isxdigit(static_cast<unsigned char>(code[i - 1])) &&
         std::isxdigit(static_cast<unsigned char>(code[i + 1]));
}

struct Literal {
  size_t offset = 0;  // of the opening quote
  std::string text;   // contents with escape sequences turned into spaces
};

bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// R"x(...)x", also with an encoding prefix (u8R, uR, UR, LR). Read as an ordinary string, a
// `"` inside it would desynchronise the blanking and hide the code that follows.
bool OpensRawString(const std::string& code, size_t quote) {
  if (quote == 0 || code[quote - 1] != 'R') return false;
  size_t start = quote - 1;
  if (start >= 2 && code.compare(start - 2, 2, "u8") == 0) {
    start -= 2;
  } else if (start >= 1 && (code[start - 1] == 'u' || code[start - 1] == 'U' ||
                            code[start - 1] == 'L')) {
    start -= 1;
  }
  return start == 0 || !IsIdentifierChar(code[start - 1]);
}

// Blanks a raw string literal (keeping line breaks), keeps its text aside and returns the
// offset of its closing quote (or the end of the code).
size_t SkipRawString(std::string* code, size_t quote, std::vector<Literal>* literals) {
  const size_t open = code->find('(', quote);
  const std::string delimiter = open == std::string::npos
                                    ? std::string()
                                    : code->substr(quote + 1, open - quote - 1);
  const size_t close = open == std::string::npos
                           ? std::string::npos
                           : code->find(")" + delimiter + "\"", open);
  const size_t end = close == std::string::npos ? code->size() : close + delimiter.size() + 1;
  if (open != std::string::npos) {
    literals->push_back({quote, code->substr(open + 1, std::min(close, code->size()) - open - 1)});
  }
  for (size_t i = quote + 1; i < end; ++i) {
    if ((*code)[i] != '\n') (*code)[i] = ' ';
  }
  return std::min(end, code->size() - 1);
}

// Blanks comments and string/char literals (keeping line breaks), so patterns only see code;
// string literals are kept aside, for the text of asm statements.
std::string CodeOnly(const std::string& source, std::vector<Literal>* literals) {
  std::string code = source;
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  Literal literal;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    char next = i + 1 < code.size() ? code[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') state = kLine;
        else if (c == '/' && next == '*') state = kBlock;
        else if (c == '"' && OpensRawString(code, i)) i = SkipRawString(&code, i, literals);
        else if (c == '"') { state = kString; literal = {i, ""}; }
        else if (c == '\'' && !IsDigitSeparator(code, i)) state = kChar;
        if (state == kLine || state == kBlock) code[i] = ' ';
        break;
      case kLine:
        if (c == '\n') state = kCode; else code[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && next == '/') { code[i] = code[i + 1] = ' '; ++i; state = kCode; }
        else if (c != '\n') code[i] = ' ';
        break;
      case kString:
        if (c == '\\') {
          literal.text += ' ';
          code[i] = ' ';
          if (i + 1 < code.size()) code[++i] = ' ';
        } else if (c == '"' || c == '\n') {  // an unterminated string ends at the line end
          state = kCode;
          literals->push_back(literal);
        } else {
          literal.text += c;
          if (c != '\n') code[i] = ' ';
        }
        break;
      case kChar:
        // A literal never spans lines: a lone quote (`#error it can't`) ends at the line end.
        if (c == '\\') { code[i] = ' '; if (i + 1 < code.size() && code[i + 1] != '\n') code[++i] = ' '; }
        else if (c == '\'' || c == '\n') state = kCode;
        else code[i] = ' ';
        break;
    }
  }
  return code;
}

// Whether `code` #defines `name`.
bool Defines(const std::string& code, const std::string& name) {
  const std::regex define("#\\s*define\\s+" + name + "\\b");
  return std::regex_search(code, define);
}

// How a conditional's first branch depends on _OPENMP (or a project's own OpenMP switch),
// which is never defined here: +1 compiled only with it (`#ifdef _OPENMP`), -1 only without
// it, 0 something else.
int OpenmpCondition(const std::string& directive, std::string rest, const std::string& code) {
  rest.erase(std::remove_if(rest.begin(), rest.end(),
                            [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
             rest.end());
  // A project's own switch (USE_OPENMP, HAVE_OPENMP) is as undefined as _OPENMP unless the
  // file defines it.
  const auto openmp_name = [&](const std::string& name) {
    const bool named = name == "_OPENMP" ||
                       (name.find("OPENMP") != std::string::npos &&
                        std::all_of(name.begin(), name.end(), [](char c) {
                          return std::isupper(static_cast<unsigned char>(c)) || c == '_';
                        }));
    return named && !Defines(code, name);
  };
  if (directive == "ifdef" && openmp_name(rest)) return 1;
  if (directive == "ifndef" && openmp_name(rest)) return -1;
  if (directive != "if") return 0;
  const int sign = !rest.empty() && rest[0] == '!' ? -1 : 1;
  if (sign < 0) rest.erase(0, 1);
  // The first term of a conjunction decides: `defined(_OPENMP) && _OPENMP >= 201307`.
  const std::string first = rest.substr(0, sign > 0 ? rest.find("&&") : std::string::npos);
  std::string name = first;
  if (name.rfind("defined(", 0) == 0 && name.back() == ')') name = name.substr(8, name.size() - 9);
  else if (name.rfind("defined", 0) == 0) name = name.substr(7);
  return openmp_name(name) ? sign : 0;
}

// `code` with the lines that only a -fopenmp build would compile blanked (line breaks kept).
std::string WithoutOpenmpOnlyCode(const std::string& code) {
  struct Branch {
    int condition;  // OpenmpCondition of the #if
    bool dead;
  };
  static const std::regex kDirective(R"(^\s*#\s*(\w+)(.*)$)");
  std::vector<Branch> open;
  std::string out = code;
  size_t begin = 0;
  while (begin < out.size()) {
    size_t end = out.find('\n', begin);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(begin, end - begin);
    std::smatch match;
    const std::string directive =
        std::regex_match(line, match, kDirective) ? match.str(1) : std::string();
    if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
      const int condition = OpenmpCondition(directive, match.str(2), code);
      open.push_back({condition, condition > 0});
    } else if (!open.empty() && (directive == "elif" || directive == "else")) {
      Branch& branch = open.back();
      // Without _OPENMP a "+1" first branch is skipped and the next one unknown; a "-1"
      // first branch is taken, so every later one is skipped.
      branch.dead = branch.condition < 0;
      if (directive == "elif" && branch.condition > 0) branch.condition = 0;
    } else if (!open.empty() && directive == "endif") {
      open.pop_back();
    } else if (std::any_of(open.begin(), open.end(), [](const Branch& b) { return b.dead; })) {
      std::fill(out.begin() + static_cast<long>(begin), out.begin() + static_cast<long>(end), ' ');
    }
    begin = end + 1;
  }
  return out;
}

int LineOf(const std::string& text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

// False when the match is a member call (x.clone(), p->kill()), a declaration, or qualified by
// a namespace or class other than std:: (or std:: where the rule says std:: is harmless).
bool CountsAsCall(const std::string& code, size_t at, const Rule& rule, bool call_like) {
  size_t i = at;
  while (i > 0 && (code[i - 1] == ' ' || code[i - 1] == '\t')) --i;
  if (i == 0) return true;
  // A call-like match after a type name on its line declares or defines a function of that
  // name (`RowStats clone() const`, `void exit()` of a scope guard): not a call. After a
  // keyword it is one.
  if (call_like && IsIdentifierChar(code[i - 1]) && !rule.matches_definitions) {
    size_t begin = i;
    while (begin > 0 && IsIdentifierChar(code[begin - 1])) --begin;
    static const std::set<std::string> kBeforeACall = {
        "return", "else", "do", "case", "throw", "co_return", "co_yield", "co_await",
        "sizeof", "not", "and", "or", "new", "delete", "goto"};
    return kBeforeACall.count(code.substr(begin, i - begin)) > 0;
  }
  if (code[i - 1] == '.') return false;
  if (code[i - 1] == '>' && i >= 2 && code[i - 2] == '-') return false;
  if (code[i - 1] != ':' || i < 2 || code[i - 2] != ':') return true;
  size_t end = i - 2;
  while (end > 0 && (code[end - 1] == ' ' || code[end - 1] == '\t')) --end;
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(code[begin - 1])) ||
                       code[begin - 1] == '_')) {
    --begin;
  }
  const std::string qualifier = code.substr(begin, end - begin);
  if (qualifier.empty()) return true;  // ::open(...) is the global function
  const bool standard = qualifier == "std" || qualifier == "this_thread";
  return standard && rule.std_qualified_counts;
}

// The end of the parenthesised operand that starts at or after `from`.
size_t ClosingParen(const std::string& code, size_t from) {
  size_t open = code.find('(', from);
  int depth = 0;
  for (size_t i = open; i != std::string::npos && i < code.size(); ++i) {
    if (code[i] == '(') ++depth;
    if (code[i] == ')' && --depth == 0) return i;
  }
  return code.size();
}

}  // namespace

std::vector<SourceFinding> CheckSource(const std::string& source) {
  std::vector<Literal> literals;
  const std::string code = CodeOnly(source, &literals);
  const std::string without_openmp_only = WithoutOpenmpOnlyCode(code);
  std::vector<SourceFinding> findings;
  for (const Rule& rule : kRules) {
    std::regex pattern(rule.pattern);
    const std::string& text = rule.skips_openmp_only_code ? without_openmp_only : code;
    for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it) {
      const size_t at = static_cast<size_t>(it->position(0));
      const std::string matched = it->str(0);
      const bool call_like = !matched.empty() && matched.back() == '(';
      if (!CountsAsCall(code, at, rule, call_like)) continue;
      if (rule.skips_openmp_only_code) {  // a name the file defines as a macro is its own
        const std::string name = matched.substr(0, matched.find_first_of(" \t("));
        if (name.rfind("omp_", 0) == 0 && Defines(code, name)) continue;
      }
      findings.push_back({rule.what, matched.substr(0, 40), LineOf(code, at)});
      break;
    }
  }
  // Inline assembly is a string literal: look inside each asm statement's own strings.
  static const std::regex kAsm(R"(\b(asm|__asm__|__asm)\b)");
  static const std::regex kSyscallInsn(R"(\b(syscall|sysenter|int\s*\$?0x80)\b)");
  for (std::sregex_iterator it(code.begin(), code.end(), kAsm), end; it != end; ++it) {
    const size_t begin = static_cast<size_t>(it->position(0));
    const size_t close = ClosingParen(code, begin);
    for (const Literal& literal : literals) {
      std::smatch match;
      if (literal.offset > begin && literal.offset < close &&
          std::regex_search(literal.text, match, kSyscallInsn)) {
        const std::string before = literal.text.substr(0, static_cast<size_t>(match.position(0)));
        const int line = LineOf(code, literal.offset) +
                         static_cast<int>(std::count(before.begin(), before.end(), '\n'));
        findings.push_back({"makes raw system calls", match.str(0), line});
        return findings;
      }
    }
  }
  return findings;
}

std::string DescribeFindings(const std::vector<SourceFinding>& findings) {
  std::string text = "static check: the source ";
  for (size_t i = 0; i < findings.size() && i < 3; ++i) {
    if (i > 0) text += i + 1 == findings.size() || i == 2 ? " and " : ", ";
    text += findings[i].what + " (`" + findings[i].token + "`";
    if (findings[i].line > 0) text += " at line " + std::to_string(findings[i].line);
    text += ")";
  }
  return text + "; kernels must be single-threaded computations without side effects";
}

}  // namespace cannbot::validator
