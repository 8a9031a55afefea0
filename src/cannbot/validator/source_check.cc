#include "cannbot/validator/source_check.h"

#include <cctype>
#include <regex>

namespace cannbot::validator {
namespace {

struct Rule {
  const char* what;
  const char* pattern;  // ECMAScript regex over code with comments and strings blanked
};

// Word boundaries keep `fopen` from matching `my_fopen_like_name`.
const Rule kRules[] = {
    {"creates threads", R"(\bstd\s*::\s*(thread|jthread|async)\b|\bpthread_create\b|#\s*pragma\s+omp\b)"},
    {"starts processes", R"(\b(fork|vfork|system|popen|posix_spawnp?|exec[lv]p?e?|execveat|clone3?)\s*\()"},
    {"opens files", R"(\b(fopen|freopen|fdopen|open|openat|creat|opendir|mmap)\s*\(|\bstd\s*::\s*(i|o)?fstream\b|\bstd\s*::\s*filesystem\b|\b(ifstream|ofstream|fstream)\b)"},
    {"uses the network", R"(\b(socket|connect|bind|listen|accept|getaddrinfo|gethostbyname)\s*\()"},
    {"handles or sends signals", R"(\b(signal|sigaction|sigprocmask|pthread_sigmask|raise|kill|tgkill|sigaltstack)\s*\()"},
    {"ends the process", R"(\b(exit|_exit|_Exit|quick_exit|abort|terminate)\s*\()"},
    {"makes raw system calls", R"(\bsyscall\s*\()"},
    {"loads code at run time", R"(\b(dlopen|dlsym|dlmopen)\s*\()"},
    {"sleeps", R"(\b(sleep|usleep|nanosleep|clock_nanosleep)\s*\(|\bsleep_for\b|\bsleep_until\b)"},
    {"uses cannbot's reserved names", R"(\bcannbot\w*)"},
    {"redefines timing or comparison functions", R"(\b(clock_gettime|gettimeofday|memcmp|bcmp)\s*\([^;{)]*\)\s*(noexcept\s*)?\{)"},
};

// Blanks comments and string/char literals (keeping line breaks), so patterns only see code.
// The text of asm statements is kept: that is where a raw `syscall` would hide.
std::string CodeOnly(const std::string& source, std::string* asm_text) {
  std::string code = source;
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  size_t literal_start = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    char next = i + 1 < code.size() ? code[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') state = kLine;
        else if (c == '/' && next == '*') state = kBlock;
        else if (c == '"') { state = kString; literal_start = i; }
        else if (c == '\'') state = kChar;
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
        if (c == '\\') { code[i] = ' '; if (i + 1 < code.size()) code[++i] = ' '; }
        else if (c == '"') {
          state = kCode;
          asm_text->append(source, literal_start, i - literal_start + 1).push_back('\n');
        } else if (c != '\n') code[i] = ' ';
        break;
      case kChar:
        if (c == '\\') { code[i] = ' '; if (i + 1 < code.size()) code[++i] = ' '; }
        else if (c == '\'') state = kCode;
        else code[i] = ' ';
        break;
    }
  }
  return code;
}

int LineOf(const std::string& text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

}  // namespace

std::vector<SourceFinding> CheckSource(const std::string& source) {
  std::string literals;
  const std::string code = CodeOnly(source, &literals);
  std::vector<SourceFinding> findings;
  for (const Rule& rule : kRules) {
    std::regex pattern(rule.pattern);
    std::smatch match;
    if (std::regex_search(code, match, pattern)) {
      findings.push_back({rule.what, match.str(0).substr(0, 40),
                          LineOf(code, static_cast<size_t>(match.position(0)))});
    }
  }
  // Inline assembly is a string literal: look there for system-call instructions.
  static const std::regex kAsm(R"(\b(asm|__asm__|__asm)\b)");
  static const std::regex kSyscallInsn(R"(\b(syscall|sysenter|int\s*\$?0x80)\b)");
  std::smatch match;
  if (std::regex_search(code, kAsm) && std::regex_search(literals, match, kSyscallInsn)) {
    findings.push_back({"makes raw system calls", match.str(0), 0});
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
