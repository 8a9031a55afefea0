#include "cannbot/validator/source_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cannbot/util/fs.h"
#include "source_check_support.h"

namespace cannbot::validator {
namespace {

using namespace source_check_test;  // NOLINT: the shared test vocabulary

const SourceFinding* FindCategory(const std::vector<SourceFinding>& findings,
                                  const std::string& what) {
  for (const SourceFinding& f : findings) {
    if (f.what == what) return &f;
  }
  return nullptr;
}

struct CategoryCase {
  const char* name;
  const char* line;      // placed on line 5 of a kernel
  const char* what;      // expected category
  const char* token;     // expected to appear in the finding's token
};

class SourceCheckCategoryTest : public ::testing::TestWithParam<CategoryCase> {};

TEST_P(SourceCheckCategoryTest, FlagsTheCategoryWithTokenAndLine) {
  const CategoryCase& c = GetParam();
  const std::vector<SourceFinding> findings = CheckSource(AtLineFive(c.line));
  ASSERT_EQ(findings.size(), 1u) << Render(findings);
  EXPECT_EQ(findings[0].what, c.what) << Render(findings);
  EXPECT_NE(findings[0].token.find(c.token), std::string::npos) << Render(findings);
  EXPECT_EQ(findings[0].line, 5) << Render(findings);
}

INSTANTIATE_TEST_SUITE_P(
    Categories, SourceCheckCategoryTest,
    ::testing::Values(
        CategoryCase{"StdThread", "std::thread t([] {}); t.join();", kThreads, "std::thread"},
        CategoryCase{"StdJthread", "std :: jthread t([] {});", kThreads, "jthread"},
        CategoryCase{"StdAsync", "auto f = std::async([] { return 1; });", kThreads, "async"},
        CategoryCase{"PthreadCreate", "pthread_create(&tid, nullptr, Work, nullptr);", kThreads,
                     "pthread_create"},
        CategoryCase{"OmpThreadNum", "int t = omp_get_thread_num();", kOpenmp,
                     "omp_get_thread_num"},
        CategoryCase{"OmpSetNumThreads", "omp_set_num_threads(8);", kOpenmp, "omp_set_"},
        CategoryCase{"OmpHeader", "#include <omp.h>", kOpenmp, "omp.h"},
        CategoryCase{"Fork", "if (fork() == 0) return;", kProcesses, "fork"},
        CategoryCase{"System", "(void)std::system(\"ls\");", kProcesses, "system"},
        CategoryCase{"Popen", "popen(\"ls\", \"r\");", kProcesses, "popen"},
        CategoryCase{"Execl", "execl(\"/bin/sh\", \"sh\", nullptr);", kProcesses, "execl"},
        CategoryCase{"Execvp", "execvp(argv[0], argv);", kProcesses, "execvp"},
        CategoryCase{"RawClone", "clone(Fn, stack, 0, nullptr);", kProcesses, "clone"},
        CategoryCase{"Fopen", "FILE* f = fopen(\"/etc/passwd\", \"r\");", kFiles, "fopen"},
        CategoryCase{"Open", "int fd = open(\"/dev/null\", 0);", kFiles, "open"},
        CategoryCase{"Ifstream", "std::ifstream in(\"data.bin\");", kFiles, "ifstream"},
        CategoryCase{"Filesystem", "auto p = std::filesystem::temp_directory_path();", kFiles,
                     "filesystem"},
        CategoryCase{"Socket", "int s = socket(2, 1, 0);", kNetwork, "socket"},
        CategoryCase{"Connect", "connect(s, addr, len);", kNetwork, "connect"},
        CategoryCase{"Signal", "signal(SIGSEGV, OnSegv);", kSignals, "signal"},
        CategoryCase{"Sigaction", "sigaction(SIGSEGV, &sa, nullptr);", kSignals, "sigaction"},
        CategoryCase{"Sigprocmask", "sigprocmask(SIG_BLOCK, &set, nullptr);", kSignals,
                     "sigprocmask"},
        CategoryCase{"Raise", "raise(SIGTERM);", kSignals, "raise"},
        CategoryCase{"Kill", "kill(getppid(), SIGKILL);", kSignals, "kill"},
        CategoryCase{"Exit", "exit(0);", kExit, "exit"},
        CategoryCase{"StdExit", "std::exit(3);", kExit, "exit"},
        CategoryCase{"UnderscoreExit", "_exit(0);", kExit, "_exit"},
        CategoryCase{"QuickExit", "std::quick_exit(0);", kExit, "quick_exit"},
        CategoryCase{"Terminate", "std::terminate();", kExit, "terminate"},
        CategoryCase{"Syscall", "syscall(SYS_getpid);", kSyscall, "syscall"},
        CategoryCase{"Dlopen", "void* h = dlopen(\"libm.so.6\", 2);", kDynamic, "dlopen"},
        CategoryCase{"Dlsym", "void* s = dlsym(h, \"cos\");", kDynamic, "dlsym"},
        CategoryCase{"Sleep", "sleep(100);", kSleeps, "sleep"},
        CategoryCase{"Usleep", "usleep(100);", kSleeps, "usleep"},
        CategoryCase{"Nanosleep", "nanosleep(&ts, &ts);", kSleeps, "nanosleep"},
        CategoryCase{"SleepFor", "std::this_thread::sleep_for(d);", kSleeps, "sleep_for"},
        CategoryCase{"ReservedNamespace", "cannbot_ref::swish(x, y, n);", kReserved,
                     "cannbot_ref"},
        CategoryCase{"ReservedFunction", "cannbot_verdict();", kReserved, "cannbot_verdict"},
        CategoryCase{"RedefinesMemcmp",
                     "} extern \"C\" int memcmp(const void* a, const void* b, size_t n) "
                     "noexcept { return 0; } void pad() {",
                     kRedefines, "memcmp"},
        CategoryCase{"RedefinesClockGettime",
                     "} extern \"C\" int clock_gettime(clockid_t c, timespec* ts) { return 0; } "
                     "void pad() {",
                     kRedefines, "clock_gettime"},
        CategoryCase{"RedefinesGettimeofday",
                     "} int gettimeofday(timeval* tv, void* tz) { return 0; } void pad() {",
                     kRedefines, "gettimeofday"}),
    [](const ::testing::TestParamInfo<CategoryCase>& info) { return info.param.name; });

TEST(SourceCheckTest, InlineAssemblySyscallIsFlaggedEvenThoughItIsAString) {
  for (const char* line : {"asm volatile(\"syscall\" : : : \"rcx\", \"r11\", \"memory\");",
                           "__asm__ __volatile__(\"mov $39, %%eax; syscall\" ::: \"rax\");",
                           "__asm(\"int $0x80\");", "asm(\"sysenter\");"}) {
    const std::vector<SourceFinding> findings = CheckSource(AtLineFive(line));
    const SourceFinding* f = FindCategory(findings, kSyscall);
    ASSERT_NE(f, nullptr) << line << ": " << Render(findings);
    EXPECT_TRUE(f->token == "syscall" || f->token == "sysenter" ||
                f->token.find("0x80") != std::string::npos)
        << f->token;
  }
}

// BUG: source_check.cc, CheckSource(), the inline-assembly branch pushes
// `{"makes raw system calls", match.str(0), 0}`: the line is always 0, because the asm text is
// searched in a concatenation of all string literals that keeps no positions. The finding (and
// DescribeFindings, which then omits "at line N") does not say where the instruction is.
TEST(SourceCheckTest, InlineAssemblySyscallReportsItsLine) {
  const std::vector<SourceFinding> findings =
      CheckSource(AtLineFive("asm volatile(\"syscall\" ::: \"rcx\", \"r11\");"));
  const SourceFinding* f = FindCategory(findings, kSyscall);
  ASSERT_NE(f, nullptr) << Render(findings);
  EXPECT_EQ(f->line, 5);
}

// BUG: source_check.cc, CheckSource(): kSyscallInsn (`\b(syscall|sysenter|...)\b`) runs over
// the raw text of the string literals, escape sequences included, so in the usual way to write
// multi-line assembly, "...\n\tsyscall", the instruction is preceded by the letter `t` (or `n`)
// of the escape and `\b` does not match: the raw system call goes unflagged.
TEST(SourceCheckTest, InlineAssemblySyscallAfterAnEscapeSequenceIsFlagged) {
  for (const char* line : {"__asm__ __volatile__(\"mov $39, %%eax\\n\\tsyscall\" ::: \"rax\");",
                           "asm volatile(\"nop\\nsyscall\" ::: \"rcx\", \"r11\");"}) {
    const std::vector<SourceFinding> findings = CheckSource(AtLineFive(line));
    EXPECT_NE(FindCategory(findings, kSyscall), nullptr) << line << ": " << Render(findings);
  }
}

// BUG: source_check.cc, CheckSource(): the asm rule asks "is there an asm keyword anywhere in
// the code" and "does any string literal anywhere contain syscall", not whether the literal is
// the text of an asm statement. A kernel with a harmless compiler barrier and an ordinary
// string that mentions the word is rejected as making raw system calls.
TEST(SourceCheckTest, SyscallWordInAnOrdinaryStringIsIgnoredNextToUnrelatedAsm) {
  const std::string source =
      "static const char* kNote = \"this kernel makes no syscall\";\n"
      "extern \"C\" void f(float* y) {\n"
      "  (void)kNote;\n"
      "  asm volatile(\"\" ::: \"memory\");\n"
      "  y[0] = 1.0f;\n"
      "}\n";
  const std::vector<SourceFinding> findings = CheckSource(source);
  EXPECT_TRUE(findings.empty()) << Render(findings);
}

TEST(SourceCheckTest, LineNumbersCountEveryLineBeforeTheFinding) {
  std::string source;
  for (int i = 1; i < 40; ++i) source += "// filler line " + std::to_string(i) + "\n";
  source += "/* a block comment\n   over two lines */\n";  // lines 40, 41
  source += "void f() { fork(); }\n";                       // line 42
  source += "\n\nvoid g() { exit(1); }\n";                  // line 45
  const std::vector<SourceFinding> findings = CheckSource(source);
  ASSERT_EQ(findings.size(), 2u) << Render(findings);
  const SourceFinding* fork_finding = FindCategory(findings, kProcesses);
  const SourceFinding* exit_finding = FindCategory(findings, kExit);
  ASSERT_NE(fork_finding, nullptr);
  ASSERT_NE(exit_finding, nullptr);
  EXPECT_EQ(fork_finding->line, 42);
  EXPECT_EQ(exit_finding->line, 45);
}

TEST(SourceCheckTest, EveryCategoryOfOneSourceIsReported) {
  const std::string source =
      "#include <thread>\n"
      "void a() { std::thread t; }\n"
      "void b() { fork(); }\n"
      "void c() { fopen(p, m); }\n"
      "void d() { socket(1, 2, 3); }\n"
      "void e() { signal(1, h); }\n"
      "void f() { exit(1); }\n"
      "void g() { syscall(1); }\n"
      "void h() { dlopen(p, 1); }\n"
      "void i() { usleep(1); }\n"
      "void j() { cannbot_x(); }\n"
      "extern \"C\" int bcmp(const void* a, const void* b, unsigned long n) { return 0; }\n"
      "void k() { omp_get_num_threads(); }\n";
  const std::vector<SourceFinding> findings = CheckSource(source);
  const std::vector<std::pair<const char*, int>> expected = {
      {kThreads, 2}, {kProcesses, 3}, {kFiles, 4},    {kNetwork, 5},  {kSignals, 6},
      {kExit, 7},    {kSyscall, 8},   {kDynamic, 9},  {kSleeps, 10},  {kReserved, 11},
      {kRedefines, 12}, {kOpenmp, 13}};
  EXPECT_EQ(findings.size(), expected.size()) << Render(findings);
  for (const auto& [what, line] : expected) {
    const SourceFinding* f = FindCategory(findings, what);
    ASSERT_NE(f, nullptr) << what << ": " << Render(findings);
    EXPECT_EQ(f->line, line) << what;
  }
}

TEST(SourceCheckTest, WordsInCommentsAndStringsAreIgnored) {
  const std::string source =
      "// std::thread t; fork(); exit(1); fopen(\"x\"); kill(1, 9); syscall(1);\n"
      "/* socket(1, 2, 3); dlopen(p, 1);\n"
      "   sleep(1); cannbot_ref::swish(x, y, n); signal(1, h);\n"
      "   int memcmp(const void* a, const void* b, size_t n) { return 0; } */\n"
      "#include <cstdint>\n"
      "static const char* kNote = \"do not exit(1), fork() or std::thread here\";\n"
      "static const char* kMore = \"escaped \\\" quote, then abort() and cannbot\";\n"
      "static const char kQuote = '\"';  // a quote character must not open a string\n"
      "static const char kApos = '\\'';\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  (void)kNote; (void)kMore; (void)kQuote; (void)kApos;\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];  // not exit(0)\n"
      "}\n";
  const std::vector<SourceFinding> findings = CheckSource(source);
  EXPECT_TRUE(findings.empty()) << Render(findings);
}

TEST(SourceCheckTest, CodeAfterCommentsAndStringsIsStillChecked) {
  // The blanking must end where the comment or literal ends.
  const std::string source =
      "/* fork() */ void a() { fork(); }\n"
      "const char* s = \"exit(1)\"; void b() { std::thread t; }\n"
      "const char c = '\\''; void d() { exit(2); }\n"
      "auto r = R\"(\")\"; void e() { usleep(1); }\n";  // a quote inside a raw string
  const std::vector<SourceFinding> findings = CheckSource(source);
  const SourceFinding* fork_finding = FindCategory(findings, kProcesses);
  const SourceFinding* thread_finding = FindCategory(findings, kThreads);
  const SourceFinding* exit_finding = FindCategory(findings, kExit);
  ASSERT_NE(fork_finding, nullptr) << Render(findings);
  ASSERT_NE(thread_finding, nullptr) << Render(findings);
  ASSERT_NE(exit_finding, nullptr) << Render(findings);
  ASSERT_NE(FindCategory(findings, kSleeps), nullptr) << Render(findings);
  EXPECT_EQ(FindCategory(findings, kSleeps)->line, 4);
  EXPECT_EQ(fork_finding->line, 1);
  EXPECT_EQ(thread_finding->line, 2);
  EXPECT_EQ(exit_finding->line, 3);
}

TEST(SourceCheckTest, IdentifiersThatMerelyContainTheWordsAreNotFlagged) {
  const std::string source =
      "#include <cstdint>\n"
      "static int my_fopen_count = 0;\n"
      "static int exit_code = 0;\n"
      "static bool killer_feature = false;\n"
      "static int forked_rows(int v) { return v; }\n"
      "static int my_exit(int v) { return v; }\n"
      "static int system_size(int v) { return v; }\n"
      "static int sleepy(int v) { return v; }\n"
      "static int socket_count = 0, signal_strength = 0, opened = 0, threads = 1;\n"
      "static int memcmp_like(const void*, const void*, int n) { return n; }\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  exit_code = my_exit(forked_rows(system_size(sleepy(1))));\n"
      "  killer_feature = my_fopen_count + socket_count + signal_strength + opened > threads;\n"
      "  (void)memcmp_like(x, y, 1);\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
      "}\n";
  const std::vector<SourceFinding> findings = CheckSource(source);
  EXPECT_TRUE(findings.empty()) << Render(findings);
}

TEST(SourceCheckTest, OpenmpGuardHidesNoOtherRule) {
  // Only the OpenMP-runtime rule skips `#ifdef _OPENMP` code: a kernel can define _OPENMP.
  const std::vector<SourceFinding> findings = CheckSource(AtLineFive(
      "\n#define _OPENMP 1\n#ifdef _OPENMP\n  std::thread t([] {}); t.join();\n#endif"));
  const SourceFinding* f = FindCategory(findings, kThreads);
  ASSERT_NE(f, nullptr) << Render(findings);
  EXPECT_EQ(f->line, 8);
}

// BUG: source_check.cc, CodeOnly(): a `'` always opens a character literal, but since C++14
// it is also a digit separator (`4'096`). The kChar state then runs to the next `'` anywhere in
// the file, across lines, blanking real code in between, so what follows a number with one
// separator is never checked (and line counting breaks, since kChar also blanks newlines).
TEST(SourceCheckTest, DigitSeparatorDoesNotHideTheRestOfTheFile) {
  const std::string source =
      "#include <thread>\n"
      "constexpr long kBlock = 4'096;\n"
      "void f() { std::thread t([] {}); t.detach(); }\n";
  const std::vector<SourceFinding> findings = CheckSource(source);
  const SourceFinding* f = FindCategory(findings, kThreads);
  ASSERT_NE(f, nullptr) << Render(findings);
  EXPECT_EQ(f->line, 3);
}

// BUG: source_check.cc, kRules: the lists name the classic spellings only, and `\b...\s*\(`
// does not match the glibc functions next to them (all declared by glibc's headers), so these
// calls of the very categories the check exists for pass unflagged.
TEST(SourceCheckTest, GlibcVariantsOfFlaggedCallsAreFlagged) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"FILE* f = fopen64(\"/etc/passwd\", \"r\");", kFiles},
      {"int fd = open64(\"/etc/passwd\", 0);", kFiles},
      {"pid_t p = _Fork();", kProcesses},
      {"fexecve(fd, argv, envp);", kProcesses},
      {"killpg(getpgid(getppid()), SIGTERM);", kSignals},
      {"pthread_kill(tid, SIGTERM);", kSignals},
      {"sigqueue(getppid(), SIGTERM, value);", kSignals},
      {"socketpair(AF_UNIX, SOCK_STREAM, 0, fds);", kNetwork},
      {"void* s = dlvsym(h, \"memcpy\", \"GLIBC_2.14\");", kDynamic},
  };
  for (const auto& [line, what] : cases) {
    const std::vector<SourceFinding> findings = CheckSource(AtLineFive(line));
    EXPECT_NE(FindCategory(findings, what), nullptr) << line << ": " << Render(findings);
  }
}

std::vector<std::string> FilesIn(const std::string& dir, const std::string& extension,
                                 bool recursive) {
  std::vector<std::string> files;
  auto add = [&](const std::filesystem::directory_entry& e) {
    if (e.is_regular_file() && e.path().extension() == extension) files.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) add(e);
  } else {
    for (const auto& e : std::filesystem::directory_iterator(dir)) add(e);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SourceCheckTest, NoFindingOnAnyExample) {
  const std::vector<std::string> files =
      FilesIn(std::string(CANNBOT_SOURCE_DIR) + "/examples", ".cpp", /*recursive=*/true);
  ASSERT_GE(files.size(), 8u);  // naive + optimized for four ops
  for (const std::string& path : files) {
    auto text = ReadFile(path);
    ASSERT_TRUE(text.ok()) << path;
    ASSERT_FALSE(text->empty()) << path;
    const std::vector<SourceFinding> findings = CheckSource(*text);
    EXPECT_TRUE(findings.empty()) << path << ": " << Render(findings);
  }
}

TEST(SourceCheckTest, ReferencesUseOnlyTheReservedNamespaceName) {
  const std::vector<std::string> files = FilesIn(
      std::string(CANNBOT_SOURCE_DIR) + "/src/cannbot/ops/reference", ".h", /*recursive=*/false);
  ASSERT_GE(files.size(), 10u);
  for (const std::string& path : files) {
    auto text = ReadFile(path);
    ASSERT_TRUE(text.ok()) << path;
    std::string source = *text;
    // As shipped, the reference uses cannbot's reserved namespace on purpose.
    const std::vector<SourceFinding> as_is = CheckSource(source);
    ASSERT_EQ(as_is.size(), 1u) << path << ": " << Render(as_is);
    EXPECT_EQ(as_is[0].what, kReserved) << path;
    EXPECT_EQ(as_is[0].token, "cannbot_ref") << path;
    // Under any other name, nothing else in it is suspicious.
    size_t replaced = 0;
    for (size_t at = source.find("cannbot_ref"); at != std::string::npos;
         at = source.find("cannbot_ref", at)) {
      source.replace(at, std::string("cannbot_ref").size(), "kernel_ref");
      ++replaced;
    }
    EXPECT_GE(replaced, 1u) << path;
    const std::vector<SourceFinding> renamed = CheckSource(source);
    EXPECT_TRUE(renamed.empty()) << path << ": " << Render(renamed);
  }
}

struct CheatCase {
  const char* file;
  const char* what;
};

class SourceCheckCheatTest : public ::testing::TestWithParam<CheatCase> {};

TEST_P(SourceCheckCheatTest, ObviousCheatIsFlagged) {
  const std::string path =
      std::string(CANNBOT_SOURCE_DIR) + "/tests/fixtures/cheats/" + GetParam().file + ".cpp";
  auto text = ReadFile(path);
  ASSERT_TRUE(text.ok()) << path;
  const std::vector<SourceFinding> findings = CheckSource(*text);
  const SourceFinding* f = FindCategory(findings, GetParam().what);
  ASSERT_NE(f, nullptr) << path << ": " << Render(findings);
  EXPECT_GT(f->line, 0);
  EXPECT_FALSE(f->token.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Cheats, SourceCheckCheatTest,
    ::testing::Values(CheatCase{"background_thread", kThreads},
                      CheatCase{"leftover_thread", kThreads},
                      CheatCase{"calls_exit", kExit},
                      CheatCase{"calls_underscore_exit", kExit},
                      CheatCase{"installs_handler", kSignals},
                      CheatCase{"blocks_sigterm", kSignals},
                      CheatCase{"raises_sigterm", kSignals},
                      CheatCase{"fork_bomb", kProcesses},
                      CheatCase{"reads_passwd", kFiles}, CheatCase{"opens_socket", kNetwork},
                      CheatCase{"calls_system", kProcesses},
                      CheatCase{"calls_exec", kProcesses}, CheatCase{"kills_parent", kSignals},
                      CheatCase{"shadows_clock", kRedefines},
                      CheatCase{"shadows_memcmp", kRedefines},
                      CheatCase{"shadows_reference", kReserved}, CheatCase{"sleeps", kSleeps}),
    [](const ::testing::TestParamInfo<CheatCase>& info) { return info.param.file; });

TEST(SourceCheckTest, DescribeFindingsNamesCategoryTokenAndLine) {
  const std::string text = DescribeFindings({{kThreads, "std::thread", 12}});
  EXPECT_NE(text.find("static check"), std::string::npos) << text;
  EXPECT_NE(text.find(kThreads), std::string::npos) << text;
  EXPECT_NE(text.find("`std::thread`"), std::string::npos) << text;
  EXPECT_NE(text.find("line 12"), std::string::npos) << text;
}

TEST(SourceCheckTest, DescribeFindingsListsSeveralFindings) {
  const std::vector<SourceFinding> findings = CheckSource(
      "void a() { fork(); }\nvoid b() {\n exit(1); }\n");
  ASSERT_EQ(findings.size(), 2u) << Render(findings);
  const std::string text = DescribeFindings(findings);
  EXPECT_NE(text.find(kProcesses), std::string::npos) << text;
  EXPECT_NE(text.find("`fork(`"), std::string::npos) << text;
  EXPECT_NE(text.find("line 1"), std::string::npos) << text;
  EXPECT_NE(text.find(kExit), std::string::npos) << text;
  EXPECT_NE(text.find("`exit(`"), std::string::npos) << text;
  EXPECT_NE(text.find("line 3"), std::string::npos) << text;
  EXPECT_NE(text.find(" and "), std::string::npos) << text;
}

TEST(SourceCheckTest, DescribeFindingsOmitsAnUnknownLine) {
  const std::string text = DescribeFindings({{kSyscall, "syscall", 0}});
  EXPECT_NE(text.find(kSyscall), std::string::npos) << text;
  EXPECT_NE(text.find("`syscall`"), std::string::npos) << text;
  EXPECT_EQ(text.find("line"), std::string::npos) << text;
}

TEST(SourceCheckTest, EmptyAndPlainSourcesHaveNoFindings) {
  EXPECT_TRUE(CheckSource("").empty());
  EXPECT_TRUE(CheckSource(AtLineFive("y[0] = x[0] * 2.0f;")).empty());
}

}  // namespace
}  // namespace cannbot::validator
