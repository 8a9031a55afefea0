// Reading what a sample's host program launched (ascendc/sample.h): the discovery lines, the
// op's shape from the tensors' sizes, and the recorded launch the replay build gets.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtin_ops.h"
#include "cannbot/ascendc/sample.h"

namespace cannbot::ascendc {
namespace {

Sample AddSample() {
  Sample s;
  s.dir = "samples/add";
  s.kernel_file = "add_custom.cpp";
  s.entry = "add_custom";
  s.entry_params = "GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling";
  s.host_file = "main.cpp";
  s.files = {{"add_custom.cpp", "#include \"kernel_operator.h\"\n#include \"tiling/add.h\"\n"},
             {"tiling/add.h", "#include \"common.h\"\nstruct AddTiling { int n; };\n"},
             {"common.h", "// shared\n"},
             {"main.cpp", "#include \"data_utils.h\"\n"},
             {"data_utils.h", "// fopen, never part of the replay\n"}};
  return s;
}

const char* const kDiscovered =
    "cannot open ./input/input_x.bin\n"
    "cannbot-sample-launch: add_custom 8 4\n"
    "cannbot-sample-arg: 0 gm 32768 -\n"
    "cannbot-sample-arg: 1 gm 32768 -\n"
    "cannbot-sample-arg: 2 gm 32768 -\n"
    "cannbot-sample-arg: 3 value 4 00400000\n"
    "cannbot-sample-type: 0 float16\n"
    "cannbot-sample-type: 1 float16\n"
    "cannbot-sample-type: 2 float16\n"
    "cannbot-sample-end\n";

TEST(SampleLaunchTest, TheDiscoveryLinesGiveTheLaunch) {
  auto launch = ParseSampleLaunch(kDiscovered, "exited with status 0", AddSample(), 3);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->kernel, "add_custom");
  EXPECT_EQ(launch->block_dim, 8u);
  ASSERT_EQ(launch->args.size(), 4u);
  EXPECT_FALSE(launch->args[3].gm);
  EXPECT_EQ(launch->args[3].data, std::string("\x00\x40\x00\x00", 4));
  EXPECT_EQ(launch->TensorDtypes(3), (std::vector<std::string>{"float16", "float16", "float16"}));
  EXPECT_EQ(launch->TensorElements(3), (std::vector<int64_t>{16384, 16384, 16384}));

  // The replay build: the kernel's headers (not the host's), the entry and the arguments.
  const PackageFiles files = SampleReplayFiles(AddSample(), *launch);
  std::vector<std::string> names;
  for (const auto& [name, text] : files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"tiling/add.h", "common.h",
                                             "cannbot_sample_replay.inc"}));
  const std::string& inc = files.back().second;
  EXPECT_NE(inc.find("#include \"tiling/add.h\""), std::string::npos) << inc;
  EXPECT_NE(inc.find("void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, AddTiling tiling);"),
            std::string::npos) << inc;
  EXPECT_NE(inc.find("{false, 4u, CANNBOT_SAMPLE_BYTES_3}"), std::string::npos) << inc;
  EXPECT_NE(inc.find("0x00,0x40,0x00,0x00,"), std::string::npos) << inc;
  EXPECT_NE(inc.find("#define CANNBOT_SAMPLE_BLOCK_DIM 8u"), std::string::npos) << inc;
}

TEST(SampleLaunchTest, WhatCannotBeRunIsSaid) {
  const Sample s = AddSample();
  auto error = ParseSampleLaunch("cannbot-sample-error: argument 1 of ICPU_RUN_KF is a pointer\n",
                                 "exited with status 3", s, 3);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.status().message().find("argument 1 of ICPU_RUN_KF"), std::string::npos);

  auto none = ParseSampleLaunch("cannbot-sample-no-launch: 0\n", "exited with status 0", s, 3);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("returned 0 without launching"), std::string::npos);

  // Two GM buffers for an op with three tensors.
  auto few = ParseSampleLaunch(
      "cannbot-sample-launch: add_custom 8 2\ncannbot-sample-arg: 0 gm 64 -\n"
      "cannbot-sample-arg: 1 gm 64 -\n", "exited with status 0", s, 3);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.status().message().find("passes 2 GM buffers; the op has 3 tensors"),
            std::string::npos) << few.status().ToString();

  // The host program can print anything: a forged argument line is an error, not a crash.
  std::string forged = kDiscovered;
  forged.replace(forged.find("00400000"), 8, "zz400000");
  auto unreadable = ParseSampleLaunch(forged, "exited with status 0", s, 3);
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.status().message().find("unreadable discovery line"), std::string::npos)
      << unreadable.status().ToString();

  // A 33-byte half tensor is not whole elements.
  std::string odd = kDiscovered;
  odd.replace(odd.find("0 gm 32768"), 10, "0 gm 33");
  auto partial = ParseSampleLaunch(odd, "exited with status 0", s, 3);
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.status().message().find("33-byte allocation"), std::string::npos)
      << partial.status().ToString();
}

TEST(SampleFilesTest, AHostWithOnlyAnAclrtLaunchRunsItsBoardBranchThroughAGeneratedHeader) {
  const std::string kernel =
      "#include \"tiling/add.h\"\nextern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x, "
      "GM_ADDR y, GM_ADDR z, AddTiling tiling) {}\n";
  const std::string host =
      "#include \"aclrtlaunch_add_custom.h\"\nint main() { ACLRT_LAUNCH_KERNEL(add_custom)(8, "
      "nullptr, x, y, z, t); }\n";
  auto sample = SampleFromFiles("s", {{"add_custom.cpp", kernel},
                                      {"tiling/add.h", "struct AddTiling { int n; };\n"},
                                      {"main.cpp", host}});
  ASSERT_TRUE(sample.ok()) << sample.status().ToString();
  EXPECT_EQ(sample->host_launch, "ACLRT_LAUNCH_KERNEL");
  const PackageFiles files = SampleDiscoveryFiles(*sample, 3);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].second.find("#undef ASCENDC_CPU_DEBUG"), std::string::npos);
  EXPECT_EQ(files[1].first, "aclrtlaunch_add_custom.h");
  // The tiling struct's header comes with the entry's declaration; the launch is recorded.
  EXPECT_NE(files[1].second.find("#include \"tiling/add.h\""), std::string::npos);
  EXPECT_NE(files[1].second.find("AddTiling tiling);"), std::string::npos);
  EXPECT_NE(files[1].second.find("aclrtlaunch_add_custom(uint32_t blockDim"), std::string::npos);

  // With a CPU-debug launch as well, that one runs, as before.
  auto both = SampleFromFiles(
      "s", {{"add_custom.cpp", kernel},
            {"tiling/add.h", "struct AddTiling { int n; };\n"},
            {"main.cpp", host + "void f() { ICPU_RUN_KF(add_custom, 8, x, y, z, t); }\n"}});
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->host_launch, "ICPU_RUN_KF");
  const PackageFiles cpu = SampleDiscoveryFiles(*both, 3);
  ASSERT_EQ(cpu.size(), 2u);  // the launch header is there for a program that includes it
  EXPECT_EQ(cpu[0].second.find("#undef ASCENDC_CPU_DEBUG"), std::string::npos);
}

TEST(SampleFilesTest, ASingleFileProgramRunsItsChevronLaunchAndReplaysItsDevicePart) {
  // The newer style: a template kernel, a host function launching it with <<<>>>, and main()
  // in one .asc.
  const std::string asc =
      "#include \"kernel_operator.h\"\ntemplate <uint32_t n>\n__vector__ __global__ void "
      "add_custom(__gm__ float* x, __gm__ float* y, __gm__ float* z) { }\n"
      "void Run(float* x, float* y, float* z) {\n  constexpr uint32_t len = 8;\n"
      "  add_custom<len><<<8, 0, stream>>>(x, y, z);\n}\n"
      "int main() { Run(x, y, z); }\n";
  auto single = SampleFromFiles("s", {{"add.asc", asc}});
  ASSERT_TRUE(single.ok()) << single.status().ToString();
  EXPECT_EQ(single->host_launch, "<<<>>>");
  EXPECT_EQ(single->kernel_file, "add.asc");
  EXPECT_EQ(single->host_file, "add.asc");
  EXPECT_EQ(single->entry, "add_custom");
  // Discovery: the board branch, the file replaced by its recording form.
  const PackageFiles discovery = SampleDiscoveryFiles(*single, 3);
  ASSERT_EQ(discovery.size(), 3u);
  EXPECT_NE(discovery[0].second.find("#include \"add.asc\""), std::string::npos);
  EXPECT_EQ(discovery[2].first, "add.asc");
  EXPECT_NE(discovery[2].second.find("CANNBOT_CHEVRON(add_custom<len>)(8, 0, stream)(x, y, z)"),
            std::string::npos)
      << discovery[2].second;
  // The launch names the instantiation the compiler resolved (`len` is gone by then).
  const std::string printed =
      "cannbot-sample-entry: static const char* cannbot_sample::Chevron<K>::Resolved() "
      "[with auto K = add_custom<8>]\n"
      "cannbot-sample-launch: add_custom 8 3\n"
      "cannbot-sample-arg: 0 gm 128 -\ncannbot-sample-arg: 1 gm 128 -\n"
      "cannbot-sample-arg: 2 gm 128 -\ncannbot-sample-type: 0 float32\n"
      "cannbot-sample-type: 1 float32\ncannbot-sample-type: 2 float32\ncannbot-sample-end\n";
  auto launch = ParseSampleLaunch(printed, "exit 0", *single, 3);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->instantiation, "add_custom<8>");
  // The replay's kernel unit: the device part, lines where they were, and the entry.
  const std::string replay = SampleReplayKernel(*single, *launch);
  EXPECT_EQ(replay.find("main"), std::string::npos) << replay;
  EXPECT_EQ(replay.find("Run("), std::string::npos) << replay;
  EXPECT_NE(replay.find("void add_custom(__gm__ float* x"), std::string::npos) << replay;
  EXPECT_NE(replay.find("\nCANNBOT_SAMPLE_PROGRAM_ENTRY(add_custom<8>)\n"), std::string::npos);
  EXPECT_EQ(std::count(replay.begin(), replay.end(), '\n'),
            std::count(asc.begin(), asc.end(), '\n') + 3);
  const PackageFiles replay_files = SampleReplayFiles(*single, *launch);
  ASSERT_EQ(replay_files.size(), 1u);
  EXPECT_NE(replay_files[0].second.find("#define CANNBOT_SAMPLE_PROGRAM 1"), std::string::npos);

  // A forged instantiation is not pasted into the replay.
  for (const char* forged : {"add_custom<8>; int evil", "other_kernel<8>", "add_customx"}) {
    std::string lines = printed;
    lines.replace(lines.find("add_custom<8>]"), 13, forged);
    auto refused = ParseSampleLaunch(lines, "exit 0", *single, 3);
    ASSERT_FALSE(refused.ok()) << forged;
    EXPECT_NE(refused.status().message().find("resolved to an instantiation cannbot cannot name"),
              std::string::npos)
        << refused.status().ToString();
  }
  // cannbot's macros are not the program's to define: the replay's entry is one of them.
  auto redefined = SampleFromFiles(
      "s", {{"add.asc", "#undef CANNBOT_SAMPLE_PROGRAM_ENTRY\n" + asc}});
  ASSERT_FALSE(redefined.ok());
  EXPECT_NE(redefined.status().message().find("reserved name CANNBOT_SAMPLE_PROGRAM_ENTRY in "
                                              "add.asc"),
            std::string::npos)
      << redefined.status().ToString();
  // A launch without a main() to run it, or of a kernel nobody defines, is named.
  auto no_main = SampleFromFiles("s", {{"add.asc", asc.substr(0, asc.find("int main"))}});
  ASSERT_FALSE(no_main.ok());
  EXPECT_NE(no_main.status().message().find("launches add_custom with <<<>>> in add.asc but no "
                                            "file defines main()"),
            std::string::npos)
      << no_main.status().ToString();
  std::string undefined = asc;
  undefined.replace(undefined.find("<len><<<"), 5, "_v2<len>");
  auto unknown = SampleFromFiles("s", {{"add.asc", undefined}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("none of its files defines a __global__ function of "
                                            "that name"),
            std::string::npos)
      << unknown.status().ToString();
}

TEST(SampleFilesTest, KernelsCannbotCannotLaunchAreNamed) {
  // A template kernel in a file of its own: named, not "no kernel entry point".
  auto templated = SampleFromFiles(
      "s", {{"add_custom.cpp",
             "template <int n>\n__global__ __aicore__ void add_custom(GM_ADDR x) { }\n"},
            {"main.cpp", "int main() { ICPU_RUN_KF(add_custom<8>, 8, x); }\n"}});
  ASSERT_FALSE(templated.ok());
  EXPECT_NE(templated.status().message().find(
                "defines its kernel without extern \"C\": add_custom.cpp (add_custom)"),
            std::string::npos)
      << templated.status().ToString();
  // A host program that declares the kernel and launches it with <<<>>> in its board branch,
  // beside its CPU-debug launch, is an ordinary sample.
  auto both = SampleFromFiles(
      "s", {{"add_custom.cpp", "extern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x) {}\n"},
            {"main.cpp",
             "extern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x);\nint main() {\n"
             "#ifdef ASCENDC_CPU_DEBUG\n  ICPU_RUN_KF(add_custom, 8, x);\n#else\n"
             "  add_custom<<<8, nullptr, stream>>>(x);\n#endif\n}\n"}});
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(both->host_launch, "ICPU_RUN_KF");
}

TEST(SampleDefinesTest, NamesAndNumbersPassAndEverythingElseIsNamed) {
  auto ok = ParseSampleDefines({"SCENARIO_NUM=2", "FAST", "TILE=0x40", "ALPHA=2.5f", "NEG=-3"});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, (std::vector<std::string>{"SCENARIO_NUM=2", "FAST=1", "TILE=0x40",
                                           "ALPHA=2.5f", "NEG=-3"}));
  const struct {
    const char* given;
    const char* says;
  } bad[] = {
      {"2X=1", "NAME must be a C identifier"},
      {"A-B=1", "NAME must be a C identifier"},
      {"CANNBOT_SAMPLE_TENSORS=9", "set by cannbot's own builds"},
      {"cannbot_x=1", "set by cannbot's own builds"},
      {"__aicore__=1", "set by cannbot's own builds"},
      {"ASCENDC_CPU_DEBUG=0", "set by cannbot's own builds"},
      {"F=system", "VALUE must be a number"},
      {"F=1;int", "VALUE must be a number"},
      {"F=1 -o x", "VALUE must be a number"},
      {"F=", "VALUE must be a number"},
  };
  for (const auto& c : bad) {
    auto parsed = ParseSampleDefines({c.given});
    ASSERT_FALSE(parsed.ok()) << c.given;
    EXPECT_NE(parsed.status().message().find(c.says), std::string::npos)
        << parsed.status().ToString();
  }
  EXPECT_FALSE(ParseSampleDefines(std::vector<std::string>(33, "A=1")).ok());
}

TEST(SampleShapeTest, SizesComeFromTheTensorsCounts) {
  const ops::OpSpec* add = cannbot_test::BuiltInOps().Find("add");
  const ops::OpSpec* layernorm = cannbot_test::BuiltInOps().Find("layernorm");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(layernorm, nullptr);
  auto n = SampleShape(*add, {1000, 1000, 1000});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->Size("n"), 1000);
  EXPECT_EQ(n->label, "sample");
  EXPECT_FALSE(n->perf);
  // cols from gamma alone, rows from x = rows * cols.
  auto rows = SampleShape(*layernorm, {48 * 1024, 1024, 1024, 48 * 1024});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->Size("rows"), 48);
  EXPECT_EQ(rows->Size("cols"), 1024);
  EXPECT_GT(rows->Scalar("eps"), 0.0f);  // the op's own default
  // A size one product fixes completes one read before it: tokens from ids, dim from
  // y = tokens * dim, then vocab from table = vocab * dim.
  const ops::OpSpec* embedding = cannbot_test::BuiltInOps().Find("embedding");
  ASSERT_NE(embedding, nullptr);
  auto lookup = SampleShape(*embedding, {64 * 64, 128, 128 * 64});
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  EXPECT_EQ(lookup->Size("tokens"), 128);
  EXPECT_EQ(lookup->Size("dim"), 64);
  EXPECT_EQ(lookup->Size("vocab"), 64);
  // Tensors that disagree fix no shape.
  auto bad = SampleShape(*add, {1000, 2000, 1000});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a=1000, b=2000, y=1000"), std::string::npos)
      << bad.status().ToString();
}

TEST(SampleShapeTest, AMatmulsSharedFactorsAreSolvedWhenOneShapeFits) {
  const ops::OpSpec* matmul = cannbot_test::BuiltInOps().Find("matmul_f16_f32");
  ASSERT_NE(matmul, nullptr);
  // a = m*k, b = k*n, c = m*n: no count names a size alone.
  auto shape = SampleShape(*matmul, {64 * 96, 96 * 32, 64 * 32});
  ASSERT_TRUE(shape.ok()) << shape.status().ToString();
  EXPECT_EQ(shape->Size("m"), 64);
  EXPECT_EQ(shape->Size("k"), 96);
  EXPECT_EQ(shape->Size("n"), 32);
  // Counts no m, n, k can give.
  EXPECT_FALSE(SampleShape(*matmul, {64 * 96, 96 * 32, 65 * 32}).ok());
}

}  // namespace
}  // namespace cannbot::ascendc
