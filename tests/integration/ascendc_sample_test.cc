// Sample-style Ascend C kernels (a kernel file beside a host main.cpp that launches it with
// ICPU_RUN_KF in its CPU-debug branch, or with ACLRT_LAUNCH_KERNEL in its board branch when it
// has no CPU-debug launch): the host program's launch is recorded by running it,
// and replayed with the op's tensors at the sample's shape; a wrong kernel fails the numeric
// layer on that shape, and a host program that cannot be run gets one clear error.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "builtin_ops.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/engine/package_suggest.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/llm/http_client.h"
#include "cannbot/util/data_dir.h"
#include "integration/fake_llm_server.h"
#include "cannbot/util/fs.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

class SampleTest : public testing::BuiltInValidatorTest {
 protected:

  // examples/ascendc/samples/NAME copied to a private directory with `edits` applied.
  Result<ascendc::Sample> EditedSample(const std::string& name, const testing::TextEdits& edits) {
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample sample,
                             ascendc::LoadSample(SourcePath("examples/ascendc/samples/" + name)));
    for (auto& [path, text] : sample.files) {
      for (const auto& [from, to] : edits) {
        for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
          text.replace(at, from.size(), to);
        }
      }
    }
    CANNBOT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("cannbot-sample-test"));
    CANNBOT_RETURN_IF_ERROR(WriteFilesUnder(dir.path(), sample.files));
    dirs_.push_back(std::move(dir));
    return ascendc::LoadSample(dirs_.back().path());
  }

  Result<PackageReport> Check(ascendc::Sample sample,
                              std::optional<ascendc::Sample> baseline = std::nullopt,
                              const std::string& op = "add") {
    SampleRequest request;
    request.op = op;
    request.candidate = std::move(sample);
    request.baseline = std::move(baseline);
    request.seed = 5;
    return ValidateSample(*validator_, cannbot_test::BuiltInOps(), request);
  }

  // A report of one combination, `combo`, that passed the checks; `note` in its first note.
  static void ExpectPassed(const Result<PackageReport>& report, const std::string& combo,
                           const std::string& note) {
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->runs.size(), 1u);
    EXPECT_EQ(report->runs[0].combo.Describe(), combo);
    ASSERT_TRUE(report->runs[0].check.has_value());
    EXPECT_TRUE(report->runs[0].check->ok) << report->runs[0].check->reason;
    ASSERT_FALSE(report->notes.empty());
    EXPECT_NE(report->notes[0].find(note), std::string::npos) << report->notes[0];
  }
  // A report whose one combination ran and failed the checks.
  static void ExpectFailed(const Result<PackageReport>& report) {
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->runs.size(), 1u);
    ASSERT_TRUE(report->runs[0].check.has_value());
    EXPECT_FALSE(report->runs[0].check->ok);
  }

  // The line of examples/ascendc/samples/NAME's kernel file where `text` first appears.
  int LineOf(const std::string& name, const std::string& text) {
    auto sample = ascendc::LoadSample(SourcePath("examples/ascendc/samples/" + name));
    if (!sample.ok()) return 0;
    for (const auto& [path, body] : sample->files) {
      if (path != sample->kernel_file) continue;
      const size_t at = body.find(text);
      return at == std::string::npos ? 0 : 1 + static_cast<int>(std::count(body.begin(), body.begin() + at, '\n'));
    }
    return 0;
  }

  std::vector<TempDir> dirs_;
};

TEST_F(SampleTest, AnUnmodifiedSampleIsLaunchedAsItsHostProgramLaunchesIt) {
  auto sample = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_custom"));
  ASSERT_TRUE(sample.ok()) << sample.status().ToString();
  EXPECT_EQ(sample->kernel_file, "add_custom.cpp");
  EXPECT_EQ(sample->host_file, "main.cpp");
  auto report = Check(*sample);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 1u);
  const PackageRun& run = report->runs[0];
  EXPECT_EQ(run.combo.Describe(), "a=float16 b=float16 y=float16");  // as the kernel copies them
  ASSERT_TRUE(run.check.has_value());
  EXPECT_TRUE(run.check->ok) << run.check->reason;
  ASSERT_FALSE(report->notes.empty());
  EXPECT_NE(report->notes[0].find("8 blocks, shape n=16384"), std::string::npos)
      << report->notes[0];

  // The same sample computing x - y: the replayed launch runs the kernel as written.
  auto wrong = EditedSample("add_custom", {{"Add(z, x, y, tileLength_);", "Sub(z, x, y, tileLength_);"}});
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  auto rejected = Check(*wrong);
  ASSERT_TRUE(rejected.ok()) << rejected.status().ToString();
  ASSERT_TRUE(rejected->runs[0].check.has_value());
  EXPECT_FALSE(rejected->runs[0].check->ok);
  EXPECT_NE(rejected->runs[0].check->reason.find("case 'sample'"), std::string::npos)
      << rejected->runs[0].check->reason;
}

TEST_F(SampleTest, ATilingInAGmBufferIsReadThroughItsPointer) {
  // The tiling in a GmAlloc buffer the host fills, read by dereferencing the kernel's GM_ADDR
  // (as samples' CPU-debug GET_TILING_DATA does): the replay gives it the bytes the host wrote.
  auto gm = EditedSample(
      "add_custom",
      {{"AddCustomTilingData tiling);", "GM_ADDR tiling);"},
       {"AddCustomTilingData tiling) {", "GM_ADDR tiling) {"},
       {"op.Init(x, y, z, tiling);",
        "op.Init(x, y, z, *reinterpret_cast<__gm__ AddCustomTilingData*>(tiling));"},
       {"  ICPU_RUN_KF(add_custom, blockDim, x, y, z, tiling);",
        "  uint8_t* t = (uint8_t*)AscendC::GmAlloc(sizeof(tiling));\n"
        "  std::memcpy(t, &tiling, sizeof(tiling));\n"
        "  ICPU_RUN_KF(add_custom, blockDim, x, y, z, t);"}});
  ASSERT_TRUE(gm.ok()) << gm.status().ToString();
  auto report = Check(*gm);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->runs[0].check.has_value());
  EXPECT_TRUE(report->runs[0].check->ok) << report->runs[0].check->reason;
}

TEST_F(SampleTest, ABaselineSampleGivesTheCostModelsComparison) {
  auto fast = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_custom"));
  auto slow = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_custom_single_core"));
  ASSERT_TRUE(fast.ok() && slow.ok());
  auto report = Check(*fast, *slow);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->runs[0].verdict.has_value());
  const validator::Verdict& verdict = *report->runs[0].verdict;
  ASSERT_TRUE(verdict.perf.has_value()) << verdict.RenderText();
  // Eight blocks against one on the same kernel: the estimate must see the cores.
  EXPECT_GT(verdict.perf->speedup, 1.0) << verdict.RenderText();
}

TEST_F(SampleTest, ARawGlobalMemoryPointerComputesButGetsNoSpeedEstimate) {
  // GetPhyAddr is a usable address, as on the device; what goes through it no counter sees.
  auto raw = EditedSample(
      "add_custom",
      {{"    zGm_.SetGlobalBuffer((__gm__ half*)z + begin, blockLength_);",
        "    zGm_.SetGlobalBuffer((__gm__ half*)z + begin, blockLength_);\n"
        "    zGm_.GetPhyAddr()[0] = xGm_.GetPhyAddr()[0];"}});
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  auto slow = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_custom_single_core"));
  ASSERT_TRUE(slow.ok());
  auto report = Check(*raw, *slow);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->runs[0].verdict.has_value());
  const validator::Verdict& verdict = *report->runs[0].verdict;
  EXPECT_FALSE(verdict.accepted);
  EXPECT_EQ(verdict.layer, validator::Layer::kPerf) << verdict.RenderText();
  EXPECT_NE(verdict.reason.find("raw pointer(s) from GlobalTensor::GetPhyAddr"), std::string::npos)
      << verdict.RenderText();
}

TEST_F(SampleTest, ACubeSampleRunsTheMatrixPathAndItsCoresShowInTheEstimate) {
  // GM -> L1 (ND -> NZ), LoadData into L0A/L0B, Mmad accumulating over K, Fixpipe to GM.
  auto fast = ascendc::LoadSample(SourcePath("examples/ascendc/samples/matmul_cube"));
  auto slow = ascendc::LoadSample(SourcePath("examples/ascendc/samples/matmul_cube_single_core"));
  ASSERT_TRUE(fast.ok() && slow.ok());
  // matmul_f16_f32's spec declares a and b half and c float, as the kernel has them.
  auto report = Check(*fast, *slow, "matmul_f16_f32");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->runs.size(), 1u);
  EXPECT_EQ(report->runs[0].combo.Describe(), "a=float16 b=float16 c=float32");
  ASSERT_TRUE(report->runs[0].verdict.has_value());
  const validator::Verdict& verdict = *report->runs[0].verdict;
  ASSERT_TRUE(verdict.perf.has_value()) << verdict.RenderText();
  // 16 tiles on 16 cube cores against the same 16 tiles on one: the copies and the cube's
  // fractals (both counted, not timed) split 16 ways; the launch overhead does not.
  EXPECT_GT(verdict.perf->speedup, 2.0) << verdict.RenderText();
  EXPECT_NE(verdict.RenderText().find("cube"), std::string::npos) << verdict.RenderText();
  // Each core holds a 64 x 64 fp16 tile of A and of B in L1 (8 + 8 KB), their K-slices in L0A
  // and L0B, and the 64 x 64 fp32 result in L0C.
  EXPECT_NE(verdict.RenderText().find("L1 high water 16 of 512 KB, L0A 8 of 64, L0B 8 of 64, "
                                      "L0C 16 of 128"),
            std::string::npos)
      << verdict.RenderText();

  // B's fractals loaded without the transpose L0B's layout needs: wrong numbers.
  auto untransposed = EditedSample("matmul_cube", {{"p.ifTranspose = true;", ""}});
  ASSERT_TRUE(untransposed.ok()) << untransposed.status().ToString();
  auto rejected = Check(*untransposed, std::nullopt, "matmul_f16_f32");
  ASSERT_TRUE(rejected.ok()) << rejected.status().ToString();
  ASSERT_TRUE(rejected->runs[0].check.has_value());
  EXPECT_FALSE(rejected->runs[0].check->ok);
  EXPECT_NE(rejected->runs[0].check->reason.find("case 'sample'"), std::string::npos)
      << rejected->runs[0].check->reason;
}

TEST_F(SampleTest, SuggestionsForASampleAreValidatedAgainstItsOwnLaunch) {
  auto slow = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_custom_single_core"));
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  auto eight_cores = ReadFile(SourcePath("examples/ascendc/samples/add_custom/main.cpp"));
  auto kernel = ReadFile(SourcePath("examples/ascendc/samples/add_custom/add_custom.cpp"));
  ASSERT_TRUE(eight_cores.ok() && kernel.ok());
  std::string broken = *kernel;
  broken.replace(broken.find("Add(z, x, y,"), 12, "Sub(z, x, y,");
  testing::FakeLlmServer server;
  server.Push(testing::Chat({"Launch on eight cores.\n\nFile: main.cpp\n```cpp\n" + *eight_cores +
                                 "```\n",
                             "File: add_custom.cpp\n```cpp\n" + broken + "```\n"}));
  PackageSuggestRequest request;
  request.op = "add";
  request.sample = *slow;
  request.samples = 2;
  request.rounds = 0;
  request.seed = 5;
  auto result = SuggestWith(server, request);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->attempts.size(), 2u);
  ASSERT_TRUE(result->found()) << result->check.RenderText();
  EXPECT_EQ(result->best, 0);
  EXPECT_GT(result->attempts[0].speedup, 1.0) << result->attempts[0].reason;
  EXPECT_NE(result->diff.find("+++ b/main.cpp"), std::string::npos) << result->diff;
  EXPECT_FALSE(result->attempts[1].accepted);
  EXPECT_NE(result->attempts[1].reason.find("a=float16 b=float16 y=float16"), std::string::npos)
      << result->attempts[1].reason;
  // The prompt carried the sample's files and its host program's launch.
  ASSERT_FALSE(server.requests().empty());
  const std::string prompt = server.requests().front();
  EXPECT_NE(prompt.find("kernel-launch sample"), std::string::npos);
  EXPECT_NE(prompt.find("File: main.cpp"), std::string::npos);
  EXPECT_NE(prompt.find("1 blocks, shape n=16384"), std::string::npos) << prompt;
}

TEST_F(SampleTest, SuggestionsForASingleFileProgramComeBackAsADiffOfThatFile) {
  // The program on one core; the model answers with the eight-core program as it is.
  auto slow = EditedSample("add_program", {{"constexpr uint32_t kBlocks = 8;",
                                            "constexpr uint32_t kBlocks = 1;"}});
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  auto fast = ReadFile(SourcePath("examples/ascendc/samples/add_program/add_program.asc"));
  ASSERT_TRUE(fast.ok());
  testing::FakeLlmServer server;
  server.Push(testing::Chat({"Use eight cores.\n\nFile: add_program.asc\n```cpp\n" + *fast +
                             "```\n"}));
  PackageSuggestRequest request;
  request.op = "add";
  request.sample = *slow;
  request.samples = 1;
  request.rounds = 0;
  request.seed = 5;
  auto result = SuggestWith(server, request);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->found()) << result->check.RenderText();
  EXPECT_GT(result->attempts[0].speedup, 1.0) << result->attempts[0].reason;
  EXPECT_NE(result->diff.find("+++ b/add_program.asc"), std::string::npos) << result->diff;
  EXPECT_NE(result->diff.find("+  constexpr uint32_t kBlocks = 8;"), std::string::npos)
      << result->diff;
  ASSERT_FALSE(server.requests().empty());
  EXPECT_NE(server.requests().front().find("a single-file program, add_program.asc: the kernel "
                                           "add_custom"),
            std::string::npos)
      << server.requests().front();
}

// The add_custom sample's host program as newer samples write it: no CPU-debug launch, only
// the board branch's aclrtMalloc/aclrtMemcpy and `launch`, an ACLRT_LAUNCH_KERNEL through the
// generated launch header.
testing::TextEdits BoardOnlyHost(const std::string& launch) {
  return {{"  ICPU_RUN_KF(add_custom, blockDim, x, y, z, tiling);\n", ""},
          {"void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, "
           "uint8_t* z,\n                   AddCustomTilingData tiling);",
           "#include \"aclrtlaunch_add_custom.h\""},
          {"add_custom_do(blockDim, stream, x, y, z, tiling);", launch},
          // More of the runtime a board program calls before its launch.
          {"  aclrtMemcpy(y, bytes, yHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE);",
           "  aclrtMemcpyAsync(y, bytes, yHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);\n"
           "  aclrtMemsetAsync(z, bytes, 0, bytes, stream);\n"
           "  int32_t device = -1;\n  aclrtGetDevice(&device);\n  aclrtSynchronizeDevice();"}};
}

TEST_F(SampleTest, AHostProgramWithOnlyAnAclrtLaunchRunsItsBoardBranch) {
  // The header takes the by-value tiling struct by its host address, as the vendor's does.
  auto board = EditedSample("add_custom", BoardOnlyHost("ACLRT_LAUNCH_KERNEL(add_custom)("
                                                        "blockDim, stream, x, y, z, &tiling);"));
  ASSERT_TRUE(board.ok()) << board.status().ToString();
  EXPECT_EQ(board->host_launch, "ACLRT_LAUNCH_KERNEL");
  for (const auto& [name, text] : board->files) {  // the runtime edit applied
    if (name == "main.cpp") {
      EXPECT_NE(text.find("aclrtMemcpyAsync"), std::string::npos);
    }
  }
  ExpectPassed(Check(*board), "a=float16 b=float16 y=float16", "8 blocks, shape n=16384");

  // Host memory handed to the launch instead of device memory is named.
  auto host_memory = EditedSample(
      "add_custom",
      BoardOnlyHost("ACLRT_LAUNCH_KERNEL(add_custom)(blockDim, stream, xHost, y, z, tiling);"));
  ASSERT_TRUE(host_memory.ok()) << host_memory.status().ToString();
  auto refused = Check(*host_memory);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("argument 0 of the kernel launch is a pointer"),
            std::string::npos)
      << refused.status().ToString();
}

TEST_F(SampleTest, ASingleFileProgramRunsAsWrittenWithItsChevronLaunch) {
  // One .asc: a template kernel, a template host function that launches it with <<<>>> and
  // main(). The replay launches add_custom<float, 512>, the instantiation main() chose.
  auto program = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_program"));
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_EQ(program->host_launch, "<<<>>>");
  EXPECT_EQ(program->kernel_file, "add_program.asc");
  ExpectPassed(Check(*program), "a=float32 b=float32 y=float32", "8 blocks, shape n=16384");

  // The same program subtracting: the replay runs the kernel as written.
  auto wrong = EditedSample("add_program", {{"AscendC::Add(z, x, y, TILE);",
                                             "AscendC::Sub(z, x, y, TILE);"}});
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  ExpectFailed(Check(*wrong));

  // A tile the host code chooses differently is the kernel the replay launches: 3 blocks of
  // a 16384-element tensor leave a share that is no whole number of tiles, and its tail is
  // never written.
  auto uneven = EditedSample("add_program", {{"constexpr uint32_t kBlocks = 8;",
                                              "constexpr uint32_t kBlocks = 3;"}});
  ASSERT_TRUE(uneven.ok()) << uneven.status().ToString();
  auto partial = Check(*uneven);
  ExpectFailed(partial);
  ASSERT_TRUE(partial.ok() && !partial->notes.empty());
  EXPECT_NE(partial->notes[0].find("3 blocks"), std::string::npos) << partial->notes[0];
}

TEST_F(SampleTest, AChevronLaunchPicksItsKernelByTheArgumentsAsTheCompilerDoes) {
  // A kernel named like a C library function (select, which <sys/select.h> declares): the
  // name is an overload set, and the launch calls the one void function among it.
  const std::string host_side = "// The host side: device buffers, copies, the launch.";
  auto named = EditedSample(
      "add_program",
      {{host_side,
        "__global__ __vector__ void select(__gm__ float* x, __gm__ float* y, __gm__ float* z,\n"
        "                                  uint32_t totalLength) {\n"
        "  TiledAdd<float, 512> op;\n  op.Init(x, y, z, totalLength);\n  op.Process();\n}\n" +
            host_side},
       {"add_custom<T, kTile><<<", "select<<<"}});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  ExpectPassed(Check(*named), "a=float32 b=float32 y=float32", "8 blocks, shape n=16384");

  // A template launched without its arguments: T is deduced from the tiling struct the
  // launch passes by value (the form of the public high-performance SoftMax program).
  const std::string deduced_kernel =
      "template <typename T>\nstruct AddTiling {\n  uint32_t totalLength;\n};\n"
      "template <typename T>\n"
      "__global__ __vector__ void add_deduced(__gm__ uint8_t* x, __gm__ uint8_t* y,\n"
      "                                       __gm__ uint8_t* z, AddTiling<T> tiling) {\n"
      "  TiledAdd<T, 256> op;\n"
      "  op.Init(reinterpret_cast<__gm__ T*>(x), reinterpret_cast<__gm__ T*>(y),\n"
      "          reinterpret_cast<__gm__ T*>(z), tiling.totalLength);\n  op.Process();\n}\n";
  auto deduced = EditedSample(
      "add_program",
      {{host_side, deduced_kernel + host_side},
       {"add_custom<T, kTile><<<kBlocks, nullptr, stream>>>(xDevice, yDevice, zDevice, total);",
        "add_deduced<<<kBlocks, nullptr, stream>>>(reinterpret_cast<uint8_t*>(xDevice),\n"
        "    reinterpret_cast<uint8_t*>(yDevice), reinterpret_cast<uint8_t*>(zDevice),\n"
        "    AddTiling<T>{total});"}});
  ASSERT_TRUE(deduced.ok()) << deduced.status().ToString();
  ExpectPassed(Check(*deduced), "a=float32 b=float32 y=float32", "8 blocks, shape n=16384");

  // Neither way picks a kernel (nothing deduces T from a bare count): said at the launch.
  auto neither = EditedSample(
      "add_program",
      {{host_side, deduced_kernel + host_side},
       {"add_custom<T, kTile><<<kBlocks, nullptr, stream>>>(xDevice, yDevice, zDevice, total);",
        "add_deduced<<<kBlocks, nullptr, stream>>>(reinterpret_cast<uint8_t*>(xDevice), "
        "reinterpret_cast<uint8_t*>(yDevice), reinterpret_cast<uint8_t*>(zDevice), total);"}});
  ASSERT_TRUE(neither.ok()) << neither.status().ToString();
  auto unpicked = Check(*neither);
  ASSERT_FALSE(unpicked.ok());
  EXPECT_NE(unpicked.status().message().find("cannot tell which kernel this <<<>>> launch calls"),
            std::string::npos)
      << unpicked.status().ToString();
  // The launch's own line (the kernel and the struct above it add 12 lines to the file).
  EXPECT_NE(unpicked.status().message().find("(from add_program.asc:" +
                                             std::to_string(LineOf("add_program", "><<<") + 12) + ")"),
            std::string::npos)
      << unpicked.status().ToString();
}

TEST_F(SampleTest, OneProgramOfADirectoryHoldingAProgramPerScenarioIsNamedByItsFile) {
  // Two programs side by side, each with its own main() (the public examples' layout when a
  // build picks one file per scenario): the directory is ambiguous, each file is a sample.
  auto program = ReadFile(SourcePath("examples/ascendc/samples/add_program/add_program.asc"));
  ASSERT_TRUE(program.ok());
  TempDir dir = std::move(TempDir::Create("cannbot-sample-test")).value();
  ASSERT_TRUE(WriteFile(dir.File("scenario_1.asc"), *program).ok());
  std::string second = *program;
  second.replace(second.find("AscendC::Add(z, x, y, TILE);"), 28, "AscendC::Sub(z, x, y, TILE);");
  ASSERT_TRUE(WriteFile(dir.File("scenario_2.asc"), second).ok());
  auto both = ascendc::LoadSample(dir.path());
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("several files define main()"), std::string::npos)
      << both.status().ToString();

  EXPECT_TRUE(ascendc::LooksLikeSample(dir.File("scenario_1.asc")));
  auto first = ascendc::LoadSample(dir.File("scenario_1.asc"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->kernel_file, "scenario_1.asc");
  ExpectPassed(Check(*first), "a=float32 b=float32 y=float32", "8 blocks, shape n=16384");
  auto other = ascendc::LoadSample(dir.File("scenario_2.asc"));
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->host_file, "scenario_2.asc");
  for (const auto& [name, text] : other->files) EXPECT_NE(name, "scenario_1.asc");

  // A file without main() is a kernel file, not a program.
  ASSERT_TRUE(WriteFile(dir.File("kernel_only.cpp"), "extern \"C\" void k() {}\n").ok());
  EXPECT_FALSE(ascendc::LooksLikeSample(dir.File("kernel_only.cpp")));
  auto not_program = ascendc::LoadSample(dir.File("kernel_only.cpp"));
  ASSERT_FALSE(not_program.ok());
  EXPECT_NE(not_program.status().message().find("is not a .cpp, .cc or .asc file that defines "
                                                "main()"),
            std::string::npos)
      << not_program.status().ToString();
}

TEST_F(SampleTest, ABfloat16ProgramIsReplayedWithBfloat16Tensors) {
  auto program = ascendc::LoadSample(SourcePath("examples/ascendc/samples/add_program_bf16"));
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  ExpectPassed(Check(*program), "a=bfloat16 b=bfloat16 y=bfloat16", "4 blocks, shape n=4096");
  // The same program subtracting in float: its bf16 result is wrong.
  auto subtracted = EditedSample("add_program_bf16", {{"AscendC::Add(wa, wa, wb, share);",
                                                      "AscendC::Sub(wa, wa, wb, share);"}});
  ASSERT_TRUE(subtracted.ok()) << subtracted.status().ToString();
  ExpectFailed(Check(*subtracted));
}

TEST_F(SampleTest, ARegisterFunctionProgramRunsItsVectorFunction) {
  // A half gelu_tanh written with __simd_vf__, RegTensor and MaskReg, called by asc_vf_call:
  // unpacked loads, casts both ways, a tail mask and packed stores.
  auto program =
      ascendc::LoadSample(SourcePath("examples/ascendc/samples/gelu_tanh_reg_program"));
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  ExpectPassed(Check(*program, std::nullopt, "gelu_tanh"), "x=float16 y=float16",
               "4 blocks, shape n=4032");
  // Widening from the odd halves of each pair, which the unpacked load left zero: wrong.
  auto odd = EditedSample(
      "gelu_tanh_reg_program",
      {{"AscendC::Reg::Cast<float, half, AscendC::layoutZMrgZ>(v, packed, mask);",
        "static constexpr AscendC::Reg::CastTrait kOdd = {AscendC::Reg::RegLayout::ONE};\n"
        "    AscendC::Reg::Cast<float, half, kOdd>(v, packed, mask);"}});
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  ExpectFailed(Check(*odd, std::nullopt, "gelu_tanh"));
}

TEST_F(SampleTest, ASamplesOwnDefinitionsReachBothBuilds) {
  // The tile length as a macro the sample's build would define (-D TILE_LEN=512).
  auto program = EditedSample("add_program", {{"constexpr uint32_t kTile = 512;",
                                               "constexpr uint32_t kTile = TILE_LEN;"},
                                              {"  TiledAdd<T, TILE> op;",
                                               "  static_assert(TILE == TILE_LEN, \"tile\");\n"
                                               "  TiledAdd<T, TILE> op;"}});
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  auto undefined = Check(*program);
  ASSERT_FALSE(undefined.ok());
  EXPECT_NE(undefined.status().message().find("give it with --define TILE_LEN=VALUE"),
            std::string::npos)
      << undefined.status().ToString();
  // The static_assert sits in the kernel, which the replay builds without the host code: it
  // passes only if the replay sees the value too.
  program->defines = {"TILE_LEN=512"};
  ExpectPassed(Check(*program), "a=float32 b=float32 y=float32", "8 blocks, shape n=16384");
}

TEST_F(SampleTest, AnInt32TensorOfTheSpecReachesTheKernelAsInt32) {
  // embedding's ids are int32 in its spec; the program reads them with the scalar unit.
  auto program = ascendc::LoadSample(SourcePath("examples/ascendc/samples/embedding_program"));
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  ExpectPassed(Check(*program, std::nullopt, "embedding"), "table=float32 ids=int32 y=float32",
               "4 blocks, shape dim=64 tokens=128 vocab=64");
  // Every token looking up its block's first id: wrong rows.
  auto first_only = EditedSample("embedding_program",
                                 {{"idLocal.GetValue(t)", "idLocal.GetValue(0)"}});
  ASSERT_TRUE(first_only.ok()) << first_only.status().ToString();
  ExpectFailed(Check(*first_only, std::nullopt, "embedding"));
}

TEST_F(SampleTest, AHostProgramCallingTheKernelFilesChevronWrapperRunsItsBoardBranch) {
  // main.cpp without a CPU-debug launch: its board branch calls add_custom_do, which the
  // kernel file defines with add_custom<<<...>>>.
  auto board = EditedSample("add_custom",
                            {{"  ICPU_RUN_KF(add_custom, blockDim, x, y, z, tiling);\n", ""}});
  ASSERT_TRUE(board.ok()) << board.status().ToString();
  EXPECT_EQ(board->host_launch, "<<<>>>");
  EXPECT_EQ(board->host_file, "main.cpp");
  EXPECT_EQ(board->kernel_file, "add_custom.cpp");
  ExpectPassed(Check(*board), "a=float16 b=float16 y=float16", "8 blocks, shape n=16384");
}

TEST_F(SampleTest, HostProgramsThatCannotBeRunGetOneClearError) {
  // No host program at all.
  TempDir only = std::move(TempDir::Create("cannbot-sample-test")).value();
  auto kernel = ReadFile(SourcePath("examples/ascendc/samples/add_custom/add_custom.cpp"));
  ASSERT_TRUE(kernel.ok());
  ASSERT_TRUE(WriteFile(only.File("add_custom.cpp"), *kernel).ok());
  auto alone = ascendc::LoadSample(only.path());
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("launches add_custom with <<<>>> in add_custom.cpp but "
                                          "no file defines main()"),
            std::string::npos)
      << alone.status().ToString();

  // A register-based vector function cannbot does not emulate is named as such.
  auto registers = EditedSample(
      "add_program", {{"template <typename T, uint32_t TILE>\nclass TiledAdd {",
                       "__simd_vf__ inline void Widen(__ubuf__ float* p) {\n"
                       "  AscendC::Reg::RegTensor<float> v;\n  AscendC::Reg::Unsqueeze(v, v);\n}\n"
                       "template <typename T, uint32_t TILE>\nclass TiledAdd {"}});
  ASSERT_TRUE(registers.ok()) << registers.status().ToString();
  auto unknown = Check(*registers);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("of the register-based vector functions, "
                                            "AscendC::Reg, cannbot emulates the ones"),
            std::string::npos)
      << unknown.status().ToString();

  // A large GM buffer past the op's tensors (the program's third for a unary op) is not taken
  // for a tiling: said on a line of its own, not run into the launch's record.
  auto large = EditedSample("add_program", {{"constexpr uint32_t kTotal = 8 * 2048;",
                                             "constexpr uint32_t kTotal = 8 * 4096;"}});
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  auto past = Check(*large, std::nullopt, "relu");
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().message().find("argument 2 (131072 bytes) is past the op's 2 tensors"),
            std::string::npos)
      << past.status().ToString();

  // A host program that returns before its launch.
  auto early = EditedSample("add_custom", {{"  ICPU_RUN_KF(", "  return 1;\n  ICPU_RUN_KF("}});
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  auto none = Check(*early);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("returned 1 without launching the kernel"),
            std::string::npos)
      << none.status().ToString();

  // A tiling left all zeros (as when the file a sample reads it from is missing): the kernel
  // divides by zero before it copies anything, and the error says which argument was empty.
  auto zeros = EditedSample("add_custom", {{"tiling{totalLength, 8}", "tiling{0, 0}"}});
  ASSERT_TRUE(zeros.ok()) << zeros.status().ToString();
  auto stopped = Check(*zeros);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.status().message().find("argument 3 (8 bytes) is all zeros"),
            std::string::npos)
      << stopped.status().ToString();
}

}  // namespace
}  // namespace cannbot::engine
