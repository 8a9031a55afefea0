// The sandboxed child with real kernels: cannbot-runner started through KernelRunner, kernels
// built by the real compiler (checks off, so the runner is what each test exercises) into a
// temporary work directory, tensors in the shared region laid out by CallLayout.
#include "cannbot/validator/kernel_runner.h"
#include "builtin_ops.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cannbot/ops/registry.h"
#include "cannbot/store/store.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/compiler.h"
#include "cannbot/validator/numeric_check.h"
#include "cannbot/validator/tensor_layout.h"

namespace cannbot::validator {
namespace {

constexpr int64_t kElements = 1000;
constexpr auto kCallTimeout = std::chrono::milliseconds(10000);

// Processes whose parent is this test process (zombies included: they still have one).
std::vector<pid_t> ChildrenOfThisProcess() {
  std::vector<pid_t> children;
  const pid_t self = ::getpid();
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = ReadFile("/proc/" + name + "/stat", 1u << 16);
    if (!stat.ok()) continue;  // gone meanwhile
    // "pid (comm) state ppid ...": comm may contain spaces and parentheses.
    const size_t close = stat->rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat->c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (ppid == self) children.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  ::closedir(proc);
  return children;
}

std::string Describe(const std::vector<pid_t>& pids) {
  std::string out;
  for (pid_t pid : pids) {
    auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat", 1u << 16);
    out += (stat.ok() ? stat->substr(0, 80) : std::to_string(pid)) + "\n";
  }
  return out;
}

// An `add` kernel (y = a + b) with extra code around it.
std::string AddKernel(const std::string& includes, const std::string& globals,
                      const std::string& after_loop) {
  return "#include <cstdint>\n" + includes + "\n" + globals +
         "\nextern \"C\" void add(const float* a, const float* b, float* y, int64_t n) {\n"
         "  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];\n"
         "  " + after_loop + "\n}\n";
}

class KernelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-runner-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    auto store = store::Store::Open(dir_->File("store.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    op_ = cannbot_test::BuiltInOps().Find("add");
    ASSERT_NE(op_, nullptr);
    shape_.label = "test";
    shape_.sizes = {{"n", kElements}};
    layout_ = CallLayout::Plan(*op_, shape_, 0);
    ASSERT_EQ(layout_.inputs.size(), 2u);
    ASSERT_EQ(layout_.outputs.size(), 1u);
  }

  // Builds `source` into <work dir>/<name>.so; checks off, so odd kernels get through.
  std::string Build(const std::string& name, const std::string& source) {
    CompilerConfig config;
    config.source_check = false;
    config.object_check = false;
    Compiler compiler(config, store_.get());
    auto result = compiler.Compile(*op_, source, dir_->path(), name);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    if (!result.ok()) return "";
    EXPECT_TRUE(result->ok) << name << ": " << result->reason << "\n" << result->log;
    return result->ok ? result->shared_object_path : "";
  }

  std::unique_ptr<KernelRunner> StartRunner(size_t region_bytes = 0) {
    auto runner = KernelRunner::Start(RunnerConfig{}, region_bytes ? region_bytes : layout_.end,
                                      dir_->path());
    EXPECT_TRUE(runner.ok()) << runner.status().ToString();
    return runner.ok() ? std::move(runner).value() : nullptr;
  }

  // Starts a runner, loads `so` into slot 0 and (optionally) seals.
  std::unique_ptr<KernelRunner> Loaded(const std::string& so, bool seal = true) {
    if (so.empty()) return nullptr;
    auto runner = StartRunner();
    if (runner == nullptr) return nullptr;
    Status loaded = runner->Load(0, so, "add", ArgKinds(*op_));
    EXPECT_TRUE(loaded.ok()) << loaded.ToString();
    if (!loaded.ok()) return nullptr;
    if (seal) {
      Status sealed = runner->Seal();
      EXPECT_TRUE(sealed.ok()) << sealed.ToString();
      if (!sealed.ok()) return nullptr;
    }
    return runner;
  }

  void StageInputs(KernelRunner* runner, const CallLayout& layout) {
    float* a = static_cast<float*>(TensorAt(runner->region(), layout.inputs[0]));
    float* b = static_cast<float*>(TensorAt(runner->region(), layout.inputs[1]));
    for (int64_t i = 0; i < kElements; ++i) {
      a[i] = 0.5f * static_cast<float>(i);
      b[i] = 1000.0f - static_cast<float>(i) * 0.25f;
    }
    FillGuards(runner->region(), layout.inputs, layout.traps);
    FillGuards(runner->region(), layout.outputs, layout.traps);
    PoisonOutputs(runner->region(), layout);
  }

  Result<CallTiming> CallOnce(KernelRunner* runner, uint32_t repetitions = 1,
                              std::chrono::milliseconds timeout = kCallTimeout) {
    return runner->Call(0, {layout_.Args(*op_, shape_)}, repetitions, timeout);
  }

  // After a failure the child is gone and every request is refused at once.
  void ExpectDead(KernelRunner* runner) {
    const auto start = SteadyClock::now();
    auto again = CallOnce(runner, 1, std::chrono::milliseconds(30000));
    const double seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().code(), Status::Code::kAborted) << again.status().ToString();
    EXPECT_LT(seconds, 5.0);  // refused, not waited out against the 30 s limit
    EXPECT_EQ(runner->Load(1, "whatever.so", "add", ArgKinds(*op_)).code(),
              Status::Code::kAborted);
    EXPECT_EQ(runner->Seal().code(), Status::Code::kAborted);
    EXPECT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());
  }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<store::Store> store_;
  const ops::OpSpec* op_ = nullptr;
  ops::Shape shape_;
  CallLayout layout_;
};

// --- the healthy path ---------------------------------------------------------------------

TEST_F(KernelRunnerTest, StartAppliesEverySandboxMechanism) {
  auto runner = StartRunner();
  ASSERT_NE(runner, nullptr);
  for (const std::string& warning : runner->sandbox_warnings()) {
    std::printf("sandbox warning at start: %s\n", warning.c_str());
  }
  EXPECT_TRUE(runner->sandbox_warnings().empty());
  EXPECT_GE(runner->region_bytes(), layout_.end);
  EXPECT_NE(runner->region(), nullptr);
  const Status sealed = runner->Seal();
  ASSERT_TRUE(sealed.ok()) << sealed.ToString();
  for (const std::string& warning : runner->sandbox_warnings()) {
    std::printf("sandbox warning after seal: %s\n", warning.c_str());
  }
  EXPECT_TRUE(runner->sandbox_warnings().empty());
}

// Fail closed: a layer that cannot be applied stops validation unless the operator asked for
// an insecure sandbox. Each layer is withheld on purpose to show it; for capabilities and
// seccomp the parent's own look at /proc must notice too, whatever the child says.
TEST_F(KernelRunnerTest, AMissingSandboxLayerRefusesToRunUntrustedCode) {
  const struct {
    const char* layer;
    const char* parent_sees;  // "" = only the child can tell
  } kLayers[] = {{"namespaces", ""},
                 {"capabilities", geteuid() == 0 ? "still holds capabilities" : ""},
                 {"no_new_privs", ""},  // seccomp sets it again on its way in
                 {"landlock", ""},
                 {"seccomp", "no seccomp filter is in force"}};
  for (const auto& layer : kLayers) {
    RunnerConfig config;
    config.withheld_layers = {layer.layer};
    auto refused = KernelRunner::Start(config, layout_.end, dir_->path());
    ASSERT_FALSE(refused.ok()) << layer.layer;
    EXPECT_EQ(refused.status().code(), Status::Code::kUnavailable);
    const std::string message = refused.status().message();
    EXPECT_NE(message.find(std::string(layer.layer) + " was not applied"), std::string::npos)
        << message;
    EXPECT_NE(message.find("--insecure-sandbox"), std::string::npos) << message;
    EXPECT_NE(message.find(layer.parent_sees), std::string::npos) << message;
    EXPECT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());

    config.insecure_sandbox = true;
    auto insecure = KernelRunner::Start(config, layout_.end, dir_->path());
    ASSERT_TRUE(insecure.ok()) << insecure.status().ToString();
    EXPECT_FALSE((*insecure)->sandbox_warnings().empty()) << layer.layer;
  }
}

// Start() verifies CapEff/CapPrm/CapAmb, NoNewPrivs and Seccomp in /proc itself (withholding
// a layer above shows it notices); here: a confined start, and the job-sized memory limit.
TEST_F(KernelRunnerTest, StartsConfinedWithAnAddressSpaceLimitSizedToTheJob) {
  auto runner = StartRunner();
  ASSERT_NE(runner, nullptr);
  EXPECT_TRUE(runner->sandbox_warnings().empty());
  RunnerConfig config;
  EXPECT_EQ(AddressSpaceMb(config, 10u << 20), 1024 + 2 * 11);
  EXPECT_EQ(AddressSpaceMb(config, size_t{64} << 30), config.address_space_mb);  // the cap
}

TEST_F(KernelRunnerTest, CorrectKernelWritesTheRightValuesIntoTheRegion) {
  auto runner = Loaded(Build("add_ok", AddKernel("", "", "")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_TRUE(timing.ok()) << timing.status().ToString();
  EXPECT_GT(timing->wall_seconds, 0.0);
  const float* a = static_cast<const float*>(TensorAt(runner->region(), layout_.inputs[0]));
  const float* b = static_cast<const float*>(TensorAt(runner->region(), layout_.inputs[1]));
  const float* y = static_cast<const float*>(TensorAt(runner->region(), layout_.outputs[0]));
  for (int64_t i = 0; i < kElements; ++i) {
    ASSERT_EQ(y[i], a[i] + b[i]) << "at " << i;
  }
  EXPECT_EQ(CheckGuards(runner->region(), layout_.outputs, "output", layout_.traps), "");
  EXPECT_EQ(CheckGuards(runner->region(), layout_.inputs, "input", layout_.traps), "");
  EXPECT_EQ(runner->ChildOutputBytes(), 0u);
  // The runner stays usable for further calls.
  PoisonOutputs(runner->region(), layout_);
  ASSERT_TRUE(CallOnce(runner.get(), 3).ok());
  EXPECT_EQ(y[kElements - 1], a[kElements - 1] + b[kElements - 1]);
}

// The child runs on the CPU CANNBOT_RUNNER_CPU names (the kernel writes sched_getcpu() into
// its output); a value that is not an online CPU is refused with its name.
TEST_F(KernelRunnerTest, TheChildRunsOnTheCpuTheEnvironmentNames) {
  const char* before = std::getenv("CANNBOT_RUNNER_CPU");
  const std::string saved = before ? before : "";
  const std::string so = Build("add_cpu", AddKernel("#include <sched.h>", "",
                                                   "for (int64_t i = 0; i < n; ++i) "
                                                   "y[i] = static_cast<float>(sched_getcpu());"));
  ASSERT_FALSE(so.empty());
  const int last = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  for (int cpu : {0, last}) {
    ::setenv("CANNBOT_RUNNER_CPU", std::to_string(cpu).c_str(), 1);
    auto runner = Loaded(so);
    ASSERT_NE(runner, nullptr);
    StageInputs(runner.get(), layout_);
    ASSERT_TRUE(CallOnce(runner.get()).ok());
    const float* y = static_cast<const float*>(TensorAt(runner->region(), layout_.outputs[0]));
    EXPECT_EQ(y[0], static_cast<float>(cpu));
    EXPECT_EQ(y[kElements - 1], static_cast<float>(cpu));
  }
  for (const char* bad : {"-1", "x", "99999"}) {
    ::setenv("CANNBOT_RUNNER_CPU", bad, 1);
    auto refused = KernelRunner::Start(RunnerConfig{}, layout_.end, dir_->path());
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("CANNBOT_RUNNER_CPU"), std::string::npos);
    EXPECT_NE(refused.status().message().find(std::string("'") + bad + "'"), std::string::npos);
  }
  if (before) {
    ::setenv("CANNBOT_RUNNER_CPU", saved.c_str(), 1);
  } else {
    ::unsetenv("CANNBOT_RUNNER_CPU");
  }
}

TEST_F(KernelRunnerTest, ZeroRepetitionsCallsNothingAndSucceeds) {
  auto runner = Loaded(Build("add_zero", AddKernel("", "", "")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get(), 0);
  ASSERT_TRUE(timing.ok()) << timing.status().ToString();
  const float* y = static_cast<const float*>(TensorAt(runner->region(), layout_.outputs[0]));
  const ops::DType dtype = layout_.outputs[0].dtype;
  EXPECT_TRUE(layout_.traps.Holds(y, dtype, 0));  // the kernel never ran
  EXPECT_TRUE(layout_.traps.Holds(y, dtype, kElements - 1));
  ASSERT_TRUE(CallOnce(runner.get(), 1).ok());  // and the runner still works
  EXPECT_FALSE(layout_.traps.Holds(y, dtype, 0));
}

TEST_F(KernelRunnerTest, CallRotatesOverArgumentSets) {
  const CallLayout second = layout_.WithOutputsAt(*op_, shape_, layout_.end);
  auto so = Build("add_sets", AddKernel("", "", ""));
  ASSERT_FALSE(so.empty());
  auto runner = KernelRunner::Start(RunnerConfig{}, second.end, dir_->path());
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  ASSERT_TRUE((*runner)->Load(0, so, "add", ArgKinds(*op_)).ok());
  ASSERT_TRUE((*runner)->Seal().ok());
  StageInputs(runner->get(), layout_);
  PoisonOutputs((*runner)->region(), second);
  auto timing = (*runner)->Call(0, {layout_.Args(*op_, shape_), second.Args(*op_, shape_)}, 2,
                                kCallTimeout);
  ASSERT_TRUE(timing.ok()) << timing.status().ToString();
  const float* a = static_cast<const float*>(TensorAt((*runner)->region(), layout_.inputs[0]));
  const float* b = static_cast<const float*>(TensorAt((*runner)->region(), layout_.inputs[1]));
  for (const CallLayout* layout : {static_cast<const CallLayout*>(&layout_), &second}) {
    const float* y = static_cast<const float*>(TensorAt((*runner)->region(), layout->outputs[0]));
    EXPECT_EQ(y[7], a[7] + b[7]);
    EXPECT_EQ(y[kElements - 1], a[kElements - 1] + b[kElements - 1]);
  }
}

// --- what the sandbox stops -----------------------------------------------------------------

TEST_F(KernelRunnerTest, ThreadStartedWithRawCloneKillsTheRunner) {
  auto runner = Loaded(Build(
      "add_clone", AddKernel("#include <sched.h>\n#include <signal.h>",
                             "alignas(64) static char g_stack[1 << 16];\n"
                             "static int Spin(void*) {\n"
                             "  for (;;) asm volatile(\"pause\" ::: \"memory\");\n"
                             "  return 0;\n"
                             "}\n",
                             "clone(Spin, g_stack + sizeof(g_stack), CLONE_VM | CLONE_FS | "
                             "CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM, "
                             "nullptr);")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("thread"), std::string::npos)
      << timing.status().message();
  ExpectDead(runner.get());
}

TEST_F(KernelRunnerTest, ThreadStartedWithStdThreadKillsTheRunner) {
  auto runner = Loaded(Build(
      "add_thread", AddKernel("#include <thread>", "",
                              "std::thread([] { for (;;) asm volatile(\"pause\"); }).detach();")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("thread"), std::string::npos)
      << timing.status().message();
  ExpectDead(runner.get());
}

// y[0] = the errno open("/dev/null") failed with, or 0 when it succeeded.
const char* const kOpensDevNull =
    "int fd = open(\"/dev/null\", O_RDONLY);\n"
    "  y[0] = fd >= 0 ? 0.0f : static_cast<float>(errno);\n"
    "  if (fd >= 0) close(fd);";

TEST_F(KernelRunnerTest, OpeningAFileAfterSealIsReported) {
  auto runner = Loaded(Build(
      "add_open", AddKernel("#include <fcntl.h>\n#include <unistd.h>\n#include <cerrno>", "",
                            kOpensDevNull)));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("opening files"), std::string::npos)
      << timing.status().message();
  EXPECT_NE(timing.status().message().find("open"), std::string::npos);
  ExpectDead(runner.get());
}

TEST_F(KernelRunnerTest, BeforeSealOpeningOutsideTheWorkDirFailsWithoutKilling) {
  // Stage one alone: the open is not trapped, but Landlock refuses /dev/null.
  auto runner = Loaded(Build("add_open_early",
                             AddKernel("#include <fcntl.h>\n#include <unistd.h>\n#include <cerrno>",
                                       "", kOpensDevNull)),
                       /*seal=*/false);
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_TRUE(timing.ok()) << timing.status().ToString();
  EXPECT_EQ(static_cast<const float*>(TensorAt(runner->region(), layout_.outputs[0]))[0],
            static_cast<float>(EACCES));
}

TEST_F(KernelRunnerTest, StaticConstructorCannotOpenFilesOutsideTheWorkDir) {
  ASSERT_TRUE(PathExists("/etc/passwd"));
  ASSERT_TRUE(WriteFile(dir_->File("inside.txt"), "readable\n").ok());
  // The constructor runs inside Load; it keeps what it saw for the kernel to report.
  auto runner = Loaded(Build(
      "add_ctor",
      AddKernel("#include <fcntl.h>\n#include <unistd.h>\n#include <cerrno>",
                "static int g_outside = -1, g_inside = -1;\n"
                "static int Probe(const char* path) {\n"
                "  int fd = open(path, O_RDONLY);\n"
                "  if (fd < 0) return errno;\n"
                "  close(fd);\n"
                "  return 0;\n"
                "}\n"
                "struct AtLoad {\n"
                "  AtLoad() { g_outside = Probe(\"/etc/passwd\"); g_inside = Probe(\"inside.txt\"); }\n"
                "};\n"
                "static AtLoad at_load;\n",
                "y[0] = static_cast<float>(g_outside);\n"
                "  y[1] = static_cast<float>(g_inside);")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_TRUE(timing.ok()) << timing.status().ToString();
  const float* y = static_cast<const float*>(TensorAt(runner->region(), layout_.outputs[0]));
  EXPECT_EQ(y[0], static_cast<float>(EACCES)) << "errno of open(/etc/passwd) at load time";
  EXPECT_EQ(y[1], 0.0f) << "errno of open(inside.txt) in the work dir at load time";
}

TEST_F(KernelRunnerTest, FloodingStdoutIsReported) {
  auto runner = Loaded(Build("add_flood", AddKernel("#include <unistd.h>",
                                                    "static char g_text[1 << 16];\n",
                                                    "for (int k = 0; k < 64; ++k) {\n"
                                                    "    g_text[0] = 'x';\n"
                                                    "    ssize_t w = write(1, g_text, sizeof(g_text));\n"
                                                    "    (void)w;\n"
                                                    "  }")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("stdout/stderr"), std::string::npos)
      << timing.status().message();
  EXPECT_GT(runner->ChildOutputBytes(), 0u);
  EXPECT_LE(runner->ChildOutputBytes(), RunnerConfig{}.max_output_bytes);
  ExpectDead(runner.get());
}

TEST_F(KernelRunnerTest, SegfaultIsReported) {
  auto runner = Loaded(Build(
      "add_segv", AddKernel("", "", "*reinterpret_cast<volatile float*>(16) = a[0];")));
  ASSERT_NE(runner, nullptr);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("SIGSEGV"), std::string::npos)
      << timing.status().message();
  ExpectDead(runner.get());
}

TEST_F(KernelRunnerTest, SignallingTheParentIsReportedAndTheParentSurvives) {
  auto runner = Loaded(Build("add_kill", AddKernel("#include <signal.h>\n#include <unistd.h>",
                                                   "", "kill(getppid(), SIGTERM);")));
  ASSERT_NE(runner, nullptr);
  // Hold SIGTERM (the child was spawned with an empty mask), so that a signal that got
  // through is seen as pending instead of ending the whole test binary.
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::sigprocmask(SIG_BLOCK, &term, &old), 0);
  StageInputs(runner.get(), layout_);
  auto timing = CallOnce(runner.get());
  sigset_t pending;
  sigemptyset(&pending);
  ::sigpending(&pending);
  const bool got_sigterm = sigismember(&pending, SIGTERM) == 1;
  if (got_sigterm) {
    const timespec zero{0, 0};
    ::sigtimedwait(&term, nullptr, &zero);  // consume it
  }
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  EXPECT_FALSE(got_sigterm) << "the kernel's SIGTERM reached the test process";
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kAborted) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("signalling other processes"), std::string::npos)
      << timing.status().message();
  ExpectDead(runner.get());
}

TEST_F(KernelRunnerTest, CallTimeoutKillsTheChild) {
  auto runner = Loaded(Build("add_hang", AddKernel("", "static volatile int g_stop = 0;\n",
                                                   "while (!g_stop) {}")));
  ASSERT_NE(runner, nullptr);
  ASSERT_EQ(ChildrenOfThisProcess().size(), 1u) << Describe(ChildrenOfThisProcess());
  StageInputs(runner.get(), layout_);
  const auto start = SteadyClock::now();
  auto timing = CallOnce(runner.get(), 1, std::chrono::milliseconds(1000));
  const double seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  ASSERT_FALSE(timing.ok());
  EXPECT_EQ(timing.status().code(), Status::Code::kTimeout) << timing.status().ToString();
  EXPECT_NE(timing.status().message().find("time limit"), std::string::npos)
      << timing.status().message();
  EXPECT_LT(seconds, 10.0);  // the 1 s limit fired; the kernel would spin forever
  // Killed and reaped while the runner object is still alive.
  EXPECT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());
  ExpectDead(runner.get());
}

// --- the child's lifetime ---------------------------------------------------------------------

TEST_F(KernelRunnerTest, DestroyingTheRunnerLeavesNoChildProcess) {
  const std::string so = Build("add_life", AddKernel("", "", ""));
  ASSERT_FALSE(so.empty());
  ASSERT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());
  {
    // Healthy and idle: asked to quit.
    auto runner = Loaded(so);
    ASSERT_NE(runner, nullptr);
    StageInputs(runner.get(), layout_);
    ASSERT_TRUE(CallOnce(runner.get()).ok());
    EXPECT_EQ(ChildrenOfThisProcess().size(), 1u) << Describe(ChildrenOfThisProcess());
  }
  EXPECT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());
  {
    // Started, never used.
    auto runner = StartRunner();
    ASSERT_NE(runner, nullptr);
    EXPECT_EQ(ChildrenOfThisProcess().size(), 1u) << Describe(ChildrenOfThisProcess());
  }
  EXPECT_TRUE(ChildrenOfThisProcess().empty()) << Describe(ChildrenOfThisProcess());
}

TEST_F(KernelRunnerTest, LoadingAMissingObjectIsAbortedAndNamed) {
  auto runner = StartRunner();
  ASSERT_NE(runner, nullptr);
  Status loaded = runner->Load(0, dir_->File("missing.so"), "add", ArgKinds(*op_));
  EXPECT_EQ(loaded.code(), Status::Code::kAborted) << loaded.ToString();
  EXPECT_NE(loaded.message().find("cannot load"), std::string::npos) << loaded.message();
  ExpectDead(runner.get());
}

}  // namespace
}  // namespace cannbot::validator
