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
#include "integration/sample_support.h"
#include "integration/test_support.h"

namespace cannbot::engine {
namespace {

using sample_testing::SampleTest;
using testing::SourcePath;

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
