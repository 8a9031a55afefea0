// Sample programs in the form of the newer public examples: one .asc (or a main.cpp and a
// kernel file) whose host code launches with <<<>>>, run as written; how a launch picks its
// kernel, a directory holding a program per scenario, bf16, register functions, the sample's
// own macros, int32 tensors, a board branch through the kernel file's wrapper.
#include <string>

#include <gtest/gtest.h>

#include "cannbot/util/fs.h"
#include "integration/sample_support.h"

namespace cannbot::engine {
namespace {

using sample_testing::SampleTest;
using testing::SourcePath;

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
  const std::string launch_line = std::to_string(LineOf("add_program", "><<<") + 12);
  EXPECT_NE(unpicked.status().message().find("(from add_program.asc:" + launch_line + ")"),
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

}  // namespace
}  // namespace cannbot::engine
