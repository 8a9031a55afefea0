// The compile layer with the real compiler: caching, the object check, the source check, the
// sandbox around the compiler and its time limit. Each test has its own store and work
// directory, so nothing is served from an earlier run's cache by accident.
#include "cannbot/validator/compiler.h"
#include "builtin_ops.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "cannbot/ops/registry.h"
#include "cannbot/store/store.h"
#include "cannbot/util/fs.h"
#include "integration/test_support.h"

namespace cannbot::validator {
namespace {

using testing::Fixture;

constexpr const char* kGoodSwish =
    "#include <cmath>\n"
    "#include <cstdint>\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));\n"
    "}\n";

constexpr const char* kSyntaxError =
    "#include <cstdint>\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] +* ;\n"
    "}\n";

// A global object whose constructor cannot be folded into static data.
constexpr const char* kGlobalConstructor =
    "#include <cstdint>\n"
    "static volatile float g_seed = 3.0f;\n"
    "struct Table {\n"
    "  float scale;\n"
    "  Table() : scale(g_seed * 0.5f) {}\n"
    "};\n"
    "static Table table;\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * table.scale;\n"
    "}\n";

constexpr const char* kDestructorAttribute =
    "#include <cstdint>\n"
    "static volatile long g_calls = 0;\n"
    "__attribute__((destructor)) static void Report() { g_calls = g_calls + 1000; }\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  g_calls = g_calls + 1;\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
    "}\n";

constexpr const char* kDefinesMemcmp =
    "#include <cstddef>\n"
    "#include <cstdint>\n"
    "extern \"C\" int memcmp(const void* a, const void* b, size_t n) noexcept {\n"
    "  (void)a; (void)b; (void)n;\n"
    "  return 0;\n"
    "}\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
    "}\n";

// Valid C++ that the static check rejects: an exit() behind a condition that never holds.
constexpr const char* kCallsExit =
    "#include <cstdint>\n"
    "#include <cstdlib>\n"
    "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
    "  if (n < 0) std::exit(3);\n"
    "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
    "}\n";

class CompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-compiler-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    auto store = store::Store::Open(dir_->File("store.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    op_ = cannbot_test::BuiltInOps().Find("swish");
    ASSERT_NE(op_, nullptr);
  }

  static CompilerConfig Config() {
    CompilerConfig config;
    config.timeout = std::chrono::milliseconds(60000);
    return config;
  }

  CompileResult Compile(const CompilerConfig& config, const std::string& source,
                        const std::string& name) {
    Compiler compiler(config, store_.get());
    auto result = compiler.Compile(*op_, source, dir_->path(), name);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    return result.ok() ? *result : CompileResult{};
  }

  std::string ReadBytes(const std::string& path) {
    auto bytes = ReadFile(path, 256u << 20);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return bytes.ok() ? *bytes : std::string();
  }

  // A stand-in compiler that records each run in `counter`, then (optionally) runs g++.
  // Unsandboxed: the sandbox would not let a script in a temporary directory run.
  CompilerConfig CountingConfig(const std::string& counter, bool run_gxx) {
    const std::string script = dir_->File(run_gxx ? "counting-gxx.sh" : "counting-true.sh");
    EXPECT_TRUE(WriteFile(script, "#!/bin/sh\necho run >> '" + counter + "'\n" +
                                      (run_gxx ? "exec g++ \"$@\"\n" : "exit 0\n"))
                    .ok());
    ::chmod(script.c_str(), 0700);
    CompilerConfig config = Config();
    config.compiler = script;
    config.sandbox = false;
    return config;
  }

  static size_t Runs(const std::string& counter) {
    auto text = ReadFile(counter);
    if (!text.ok()) return 0;
    size_t lines = 0;
    for (char c : *text) lines += c == '\n' ? 1 : 0;
    return lines;
  }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<store::Store> store_;
  const ops::OpSpec* op_ = nullptr;
};

// --- a good kernel and the cache ----------------------------------------------------------

TEST_F(CompilerTest, GoodKernelCompilesWithTheConfiguredFlags) {
  CompileResult r = Compile(Config(), kGoodSwish, "good");
  ASSERT_TRUE(r.ok) << r.reason << "\n" << r.log;
  EXPECT_FALSE(r.cached);
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.reason.empty()) << r.reason;
  EXPECT_EQ(r.shared_object_path, dir_->File("good.so"));
  ASSERT_TRUE(PathExists(r.shared_object_path));
  EXPECT_EQ(ReadBytes(r.shared_object_path).substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(r.command.find("-O3"), std::string::npos) << r.command;
  EXPECT_NE(r.command.find("-march=native"), std::string::npos) << r.command;
  EXPECT_EQ(r.command.rfind("g++", 0), 0u) << r.command;  // the compiler, not the runner
  // The sandbox around the compiler was complete (it prints warnings into the log if not).
  EXPECT_EQ(r.log.find("cannbot-runner"), std::string::npos) << r.log;
  EXPECT_GT(r.seconds, 0.0);
}

TEST_F(CompilerTest, SecondCompileOfTheSameSourceIsCachedFasterAndIdentical) {
  CompileResult first = Compile(Config(), kGoodSwish, "first");
  ASSERT_TRUE(first.ok) << first.reason << "\n" << first.log;
  ASSERT_FALSE(first.cached);
  CompileResult second = Compile(Config(), kGoodSwish, "second");
  ASSERT_TRUE(second.ok) << second.reason;
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.shared_object_path, dir_->File("second.so"));
  EXPECT_EQ(ReadBytes(second.shared_object_path), ReadBytes(first.shared_object_path));
  // A store lookup against a real -O3 build (and the reference build it triggers).
  EXPECT_LT(second.seconds, first.seconds / 2) << first.seconds << " s then " << second.seconds;
  EXPECT_NE(second.command.find("-O3"), std::string::npos) << second.command;
}

TEST_F(CompilerTest, CacheHitDoesNotRunTheCompiler) {
  const std::string counter = dir_->File("runs.txt");
  const CompilerConfig config = CountingConfig(counter, /*run_gxx=*/true);
  CompileResult first = Compile(config, kGoodSwish, "first");
  ASSERT_TRUE(first.ok) << first.reason << "\n" << first.log;
  const size_t after_first = Runs(counter);
  EXPECT_GE(after_first, 1u);  // the candidate (and the reference for the object check)
  CompileResult second = Compile(config, kGoodSwish, "second");
  ASSERT_TRUE(second.ok) << second.reason;
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(Runs(counter), after_first);
  CompilerConfig uncached = config;
  uncached.use_cache = false;
  CompileResult third = Compile(uncached, kGoodSwish, "third");
  ASSERT_TRUE(third.ok) << third.reason;
  EXPECT_FALSE(third.cached);
  EXPECT_GT(Runs(counter), after_first);
}

TEST_F(CompilerTest, DifferentFlagsAreNotACacheHit) {
  CompileResult o3 = Compile(Config(), kGoodSwish, "o3");
  ASSERT_TRUE(o3.ok) << o3.reason << "\n" << o3.log;
  CompilerConfig o2 = Config();
  o2.flags = {"-O2", "-march=native", "-std=c++17", "-fPIC", "-shared"};
  CompileResult other = Compile(o2, kGoodSwish, "o2");
  ASSERT_TRUE(other.ok) << other.reason << "\n" << other.log;
  EXPECT_FALSE(other.cached);
  EXPECT_NE(other.command.find("-O2"), std::string::npos) << other.command;
  EXPECT_EQ(other.command.find("-O3"), std::string::npos) << other.command;
  // And each flag set is then a hit for itself.
  EXPECT_TRUE(Compile(o2, kGoodSwish, "o2_again").cached);
  EXPECT_TRUE(Compile(Config(), kGoodSwish, "o3_again").cached);
}

TEST_F(CompilerTest, FailuresAreCachedWithTheSameReason) {
  CompileResult first = Compile(Config(), kSyntaxError, "broken");
  ASSERT_FALSE(first.ok);
  EXPECT_FALSE(first.cached);
  EXPECT_NE(first.reason.find("compilation failed"), std::string::npos) << first.reason;
  EXPECT_NE(first.log.find("error"), std::string::npos) << first.log;
  EXPECT_TRUE(first.shared_object_path.empty());
  EXPECT_FALSE(PathExists(dir_->File("broken.so")));
  CompileResult second = Compile(Config(), kSyntaxError, "broken");
  EXPECT_FALSE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.reason, first.reason);
  EXPECT_EQ(second.log, first.log);
  EXPECT_FALSE(PathExists(dir_->File("broken.so")));
}

// --- the object check ---------------------------------------------------------------------

struct ObjectCase {
  const char* name;
  const char* source;
  const char* reason;  // a phrase of the object check's reason
};

class ObjectCheckTest : public CompilerTest, public ::testing::WithParamInterface<ObjectCase> {};

TEST_P(ObjectCheckTest, RejectedByTheObjectCheckAndAcceptedWithoutIt) {
  CompilerConfig config = Config();
  config.source_check = false;  // so the object check is what sees it
  CompileResult checked = Compile(config, GetParam().source, "checked");
  EXPECT_FALSE(checked.ok);
  EXPECT_NE(checked.reason.find(GetParam().reason), std::string::npos) << checked.reason;
  EXPECT_TRUE(checked.shared_object_path.empty());
  EXPECT_FALSE(PathExists(dir_->File("checked.so")));

  config.object_check = false;
  CompileResult unchecked = Compile(config, GetParam().source, "unchecked");
  EXPECT_TRUE(unchecked.ok) << unchecked.reason << "\n" << unchecked.log;
  EXPECT_TRUE(PathExists(dir_->File("unchecked.so")));
}

INSTANTIATE_TEST_SUITE_P(
    Objects, ObjectCheckTest,
    ::testing::Values(
        ObjectCase{"GlobalConstructor", kGlobalConstructor, "runs code when it is loaded"},
        ObjectCase{"DestructorAttribute", kDestructorAttribute, "runs code when it is unloaded"},
        ObjectCase{"DefinesMemcmp", kDefinesMemcmp, "defines memcmp, a C library function"}),
    [](const ::testing::TestParamInfo<ObjectCase>& info) { return info.param.name; });

TEST_F(CompilerTest, ObjectCheckAcceptsAPlainKernel) {
  CompilerConfig config = Config();
  config.source_check = false;
  CompileResult r = Compile(config, kGoodSwish, "plain");
  EXPECT_TRUE(r.ok) << r.reason;
}

// BUG: object_inspector.cc, InspectSharedObject()/CheckObjectFacts(): "runs code at load time"
// is judged only by the number of .init_array/.ctors entries. An IFUNC resolver runs inside
// dlopen (RTLD_NOW resolves the IRELATIVE relocation) before any constructor, without adding
// an entry, so a kernel that runs code at load time passes the compile layer. (Code placed in
// the .init section with top-level asm, ".section .init; call f", slips through the same way.)
TEST_F(CompilerTest, IfuncResolverCountsAsCodeAtLoadTime) {
  const std::string source =
      "#include <cstdint>\n"
      "static volatile int g_loaded = 0;\n"
      "static void Impl(float* y) { y[0] = 1.0f; }\n"
      "extern \"C\" void* ResolveHelper() { g_loaded = 42; return (void*)&Impl; }\n"
      "extern \"C\" void Helper(float* y) __attribute__((ifunc(\"ResolveHelper\")));\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
      "  if (n > 0) { Helper(y); y[0] = x[0] + 0.0f * g_loaded; }\n"
      "}\n";
  CompileResult r = Compile(Config(), source, "ifunc");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("loaded"), std::string::npos) << r.reason;
}

// --- the source check ---------------------------------------------------------------------

TEST_F(CompilerTest, SourceCheckRejectsBeforeCompilingAndCanBeTurnedOff) {
  const std::string counter = dir_->File("runs.txt");
  CompilerConfig config = CountingConfig(counter, /*run_gxx=*/true);
  CompileResult checked = Compile(config, kCallsExit, "checked");
  EXPECT_FALSE(checked.ok);
  EXPECT_NE(checked.reason.find("static check"), std::string::npos) << checked.reason;
  EXPECT_NE(checked.reason.find("ends the process"), std::string::npos) << checked.reason;
  EXPECT_NE(checked.reason.find("line 4"), std::string::npos) << checked.reason;
  EXPECT_EQ(Runs(counter), 0u);  // rejected without running the compiler
  EXPECT_FALSE(PathExists(dir_->File("checked.so")));

  config.source_check = false;
  CompileResult unchecked = Compile(config, kCallsExit, "unchecked");
  EXPECT_TRUE(unchecked.ok) << unchecked.reason << "\n" << unchecked.log;
  EXPECT_GE(Runs(counter), 1u);
}

TEST_F(CompilerTest, SourceCheckRejectsAFixtureCheat) {
  auto source = ReadFile(Fixture("cheats/fork_bomb.cpp"));
  ASSERT_TRUE(source.ok());
  CompileResult r = Compile(Config(), *source, "fork_bomb");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("starts processes"), std::string::npos) << r.reason;
}

// --- OpenMP: simd honoured, no runtime ----------------------------------------------------

TEST_F(CompilerTest, OpenmpPragmasBuildWithoutTheRuntime) {
  const std::string source =
      "#include <cstdint>\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "#pragma omp parallel for\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"
      "#pragma omp simd\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] *= 1.0f;\n"
      "}\n";
  CompileResult r = Compile(Config(), source, "omp");
  // Linked with --no-undefined and no libgomp: `parallel` cannot have become threads.
  EXPECT_TRUE(r.ok) << r.reason << "\n" << r.log;
  EXPECT_NE(r.command.find("-fopenmp-simd"), std::string::npos) << r.command;
}

TEST_F(CompilerTest, OpenmpRuntimeCallIsRejectedAndWouldNotLink) {
  const std::string source =
      "#include <cstdint>\n"
      "#include <omp.h>\n"
      "extern \"C\" void swish(const float* x, float* y, int64_t n) {\n"
      "  for (int64_t i = 0; i < n; ++i) y[i] = x[i] + 0.0f * omp_get_thread_num();\n"
      "}\n";
  CompileResult checked = Compile(Config(), source, "omp_checked");
  EXPECT_FALSE(checked.ok);
  EXPECT_NE(checked.reason.find("uses the OpenMP runtime (threads)"), std::string::npos)
      << checked.reason;
  CompilerConfig unchecked = Config();
  unchecked.source_check = false;
  CompileResult built = Compile(unchecked, source, "omp_unchecked");
  EXPECT_FALSE(built.ok);
  EXPECT_NE(built.log.find("omp_get_thread_num"), std::string::npos) << built.log;
}

// --- the compiler's environment -----------------------------------------------------------

// A secret in cannbot's own environment must not reach the compiler, whose log goes back to
// the kernel's author: the stand-in compiler (/bin/sh, allowed by the sandbox) prints its
// environment into the log, then runs g++.
TEST_F(CompilerTest, CompilerSeesAMinimalEnvironmentWithoutSecrets) {
  ASSERT_EQ(::setenv("CANNBOT_TEST_SECRET", "s3cr3t-value", 1), 0);
  for (const bool sandbox : {true, false}) {
    CompilerConfig config = Config();
    config.sandbox = sandbox;
    config.use_cache = false;
    config.compiler = "/bin/sh";
    config.flags = {"-c", "env >&2; exec g++ \"$@\"", "sh", "-O1", "-std=c++17", "-fPIC",
                    "-shared"};
    CompileResult r = Compile(config, kGoodSwish, sandbox ? "env_sandboxed" : "env_open");
    EXPECT_TRUE(r.ok) << "sandbox=" << sandbox << ": " << r.reason << "\n" << r.log;
    EXPECT_EQ(r.log.find("s3cr3t-value"), std::string::npos) << r.log;
    EXPECT_EQ(r.log.find("CANNBOT_TEST_SECRET"), std::string::npos) << r.log;
    const std::string log = "\n" + r.log;
    auto value = [&log](const std::string& name) {
      const size_t at = log.find("\n" + name + "=");
      if (at == std::string::npos) return std::string("(unset)");
      const size_t begin = at + name.size() + 2;
      return log.substr(begin, log.find('\n', begin) - begin);
    };
    EXPECT_EQ(value("PATH"), "/usr/local/bin:/usr/bin:/bin") << r.log;
    EXPECT_EQ(value("LANG"), "C") << r.log;
    EXPECT_EQ(value("LC_ALL"), "C") << r.log;
    EXPECT_NE(value("HOME").find("/cannbot-compile-"), std::string::npos) << r.log;
    EXPECT_EQ(value("TMPDIR"), value("HOME")) << r.log;
  }
  ::unsetenv("CANNBOT_TEST_SECRET");
}

// --- the sandbox around the compiler ------------------------------------------------------

TEST_F(CompilerTest, IncludingPasswdDoesNotLeakItThroughTheLog) {
  auto source = ReadFile(Fixture("cheats/include_passwd.cpp"));
  ASSERT_TRUE(source.ok());
  ASSERT_TRUE(PathExists("/etc/passwd"));
  CompileResult sandboxed = Compile(Config(), *source, "passwd");
  EXPECT_FALSE(sandboxed.ok);
  EXPECT_FALSE(sandboxed.cached);
  EXPECT_NE(sandboxed.reason.find("compilation failed"), std::string::npos) << sandboxed.reason;
  EXPECT_EQ(sandboxed.log.find("root:"), std::string::npos) << sandboxed.log;
  EXPECT_NE(sandboxed.log.find("/etc/passwd"), std::string::npos) << sandboxed.log;

  // The same source without the sandbox, in a store of its own (the cache key does not
  // include the sandbox setting): the compiler gets further, so the log differs.
  auto other_store = store::Store::Open(dir_->File("unsandboxed.db"));
  ASSERT_TRUE(other_store.ok());
  CompilerConfig unsandboxed = Config();
  unsandboxed.sandbox = false;
  Compiler compiler(unsandboxed, other_store->get());
  auto open = compiler.Compile(*op_, *source, dir_->path(), "passwd_open");
  ASSERT_TRUE(open.ok()) << open.status().ToString();
  EXPECT_FALSE(open->ok);
  EXPECT_FALSE(open->cached);
  EXPECT_NE(open->log, sandboxed.log);
}

// BUG: compiler.cc, Compiler::CacheKey(): the key covers compiler identity, flags, prelude and
// source but not CompilerConfig::sandbox (nor address_space_mb). A result built without the
// sandbox is served to a sandboxed Compiler sharing the store: the include_passwd cheat then
// gets the unsandboxed log, with the host's /etc/passwd in it, as a cache hit.
TEST_F(CompilerTest, UnsandboxedResultIsNotServedToASandboxedCompile) {
  auto source = ReadFile(Fixture("cheats/include_passwd.cpp"));
  ASSERT_TRUE(source.ok());
  CompilerConfig unsandboxed = Config();
  unsandboxed.sandbox = false;
  CompileResult open = Compile(unsandboxed, *source, "open");
  EXPECT_FALSE(open.ok);
  CompileResult sandboxed = Compile(Config(), *source, "sandboxed");
  EXPECT_FALSE(sandboxed.ok);
  EXPECT_FALSE(sandboxed.cached);
  EXPECT_EQ(sandboxed.log.find("root:"), std::string::npos) << sandboxed.log;
}

TEST_F(CompilerTest, CompilerTimeLimitFiresAndIsNotCached) {
  auto source = ReadFile(Fixture("cheats/template_bomb.cpp"));
  ASSERT_TRUE(source.ok());
  CompilerConfig config = Config();
  config.timeout = std::chrono::milliseconds(3000);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const auto start = SteadyClock::now();
    CompileResult r = Compile(config, *source, "bomb");
    const double seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.timed_out) << r.reason << "\n" << r.log.substr(0, 2000);
    EXPECT_FALSE(r.cached) << "attempt " << attempt;  // a timeout is never cached
    EXPECT_NE(r.reason.find("did not finish within 3 s"), std::string::npos) << r.reason;
    EXPECT_LT(seconds, 30.0);  // killed near the 3 s limit, not waited out
  }
}

// --- inputs rejected up front -------------------------------------------------------------

TEST_F(CompilerTest, EmptySourceIsRejectedWithoutRunningTheCompiler) {
  const std::string counter = dir_->File("runs.txt");
  const CompilerConfig config = CountingConfig(counter, /*run_gxx=*/false);
  for (const char* source : {"", "   \n\t\r\n  "}) {
    CompileResult r = Compile(config, source, "empty");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find("empty"), std::string::npos) << r.reason;
  }
  EXPECT_EQ(Runs(counter), 0u);
}

TEST_F(CompilerTest, TooLargeSourceIsRejectedWithoutRunningTheCompiler) {
  const std::string counter = dir_->File("runs.txt");
  CompilerConfig config = CountingConfig(counter, /*run_gxx=*/false);
  config.max_source_bytes = 1000;
  config.object_check = false;
  std::string source = kGoodSwish;
  source += "//";
  source.resize(1001, 'x');
  CompileResult large = Compile(config, source, "large");
  EXPECT_FALSE(large.ok);
  EXPECT_NE(large.reason.find("larger than 1000 bytes"), std::string::npos) << large.reason;
  EXPECT_EQ(Runs(counter), 0u);
  // One byte less is within the limit and reaches the (stand-in) compiler.
  source.resize(1000);
  CompileResult limit = Compile(config, source, "limit");
  EXPECT_EQ(limit.reason.find("larger than"), std::string::npos) << limit.reason;
  EXPECT_EQ(Runs(counter), 1u);
}

// --- the reference --------------------------------------------------------------------------

TEST_F(CompilerTest, CompileReferenceBuildsDespiteTheReservedName) {
  Compiler compiler(Config(), store_.get());
  ASSERT_TRUE(compiler.config().source_check);
  ASSERT_TRUE(compiler.config().object_check);
  for (const char* name : {"swish", "add", "dwsep_block"}) {
    const ops::OpSpec* op = cannbot_test::BuiltInOps().Find(name);
    ASSERT_NE(op, nullptr) << name;
    auto r = compiler.CompileReference(*op, dir_->path(), std::string("ref_") + name);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->ok) << name << ": " << r->reason << "\n" << r->log;
    EXPECT_TRUE(PathExists(dir_->File(std::string("ref_") + name + ".so"))) << name;
  }
  // The same text as a candidate is stopped by the source check for that very name.
  auto candidate = compiler.Compile(*op_, op_->ReferenceAsKernel(), dir_->path(), "as_candidate");
  ASSERT_TRUE(candidate.ok()) << candidate.status().ToString();
  EXPECT_FALSE(candidate->ok);
  EXPECT_NE(candidate->reason.find("reserved"), std::string::npos) << candidate->reason;
}

}  // namespace
}  // namespace cannbot::validator
