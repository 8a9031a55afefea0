// The edits that let a host compiler build a program launching its kernel with <<<>>>
// (ascendc/program_text.h): the launch rewritten to a call, the device part alone, and the
// check on the instantiation names the discovery prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cannbot/ascendc/program_text.h"

namespace cannbot::ascendc {
namespace {

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(ProgramTextTest, ChevronLaunchesBecomeCallsOnTheirOwnLines) {
  const std::string text =
      "void Run() {\n"
      "  // k<<<1, 0, s>>>(a) in a comment stays\n"
      "  const char* says = \"<<<\";\n"
      "  add_custom<T, kTile><<<kBlocks, nullptr, stream>>>(x, y,\n"
      "                                                   z);\n"
      "  ns::plain<<<\n    8, 0, stream>>>(x);\n"
      "}\n";
  const std::string out = RewriteChevrons(text);
  EXPECT_NE(out.find("CANNBOT_CHEVRON(add_custom<T, kTile>)(kBlocks, nullptr, stream)(x, y,"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("CANNBOT_CHEVRON(ns::plain)(\n    8, 0, stream)(x);"), std::string::npos)
      << out;
  EXPECT_NE(out.find("// k<<<1, 0, s>>>(a) in a comment stays"), std::string::npos);
  EXPECT_NE(out.find("\"<<<\""), std::string::npos);
  EXPECT_EQ(Lines(out), Lines(text));
  EXPECT_EQ(ChevronLaunched(text), (std::vector<std::string>{"add_custom", "plain"}));
  EXPECT_TRUE(ChevronLaunched("int x = 1 << 3;\n").empty());
}

TEST(ProgramTextTest, HostFunctionsAreBlankedAndTheDevicePartKept) {
  const std::string text =
      "#include \"acl/acl.h\"\n"
      "#include \"kernel_operator.h\"\n"
      "constexpr uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }\n"
      "struct Tiling { uint32_t n; };\n"
      "__simd_vf__ inline void AddVf(__ubuf__ float* p) { Step(p); }\n"
      "template <typename T>\n__simd_callee__ inline void Step(T* p) { *p += 1; }\n"
      "class KernelAdd {\n public:\n  __aicore__ inline void Init() { n_ = 1; }\n  int n_;\n};\n"
      "template <typename T, uint32_t L>\n"
      "__global__ __vector__ void add_custom(__gm__ T* x, Tiling t) { KernelAdd op; op.Init(); }\n"
      "namespace host {\n"
      "bool ReadInput(const std::string& path, void* buffer) {\n"
      "  std::ifstream file(path);\n"
      "#ifdef VERBOSE\n  std::puts(\"reading {\");\n#endif\n"
      "  return file.good();\n}\n"
      "}  // namespace host\n"
      "template <typename T>\nstd::vector<T> Run(const std::vector<T>& x) {\n"
      "  add_custom<T, 8><<<8, nullptr, stream>>>(x, t);\n  return x;\n}\n"
      "auto kTable = [](int v) { return v * 2; };\n"
      "int32_t main(int32_t argc, char* argv[]) { return Run(x).size() == 0; }\n";
  const std::string out = WithoutHostFunctions(text);
  EXPECT_EQ(out.size(), text.size());
  EXPECT_EQ(Lines(out), Lines(text));
  for (const char* kept :
       {"#include \"acl/acl.h\"", "constexpr uint32_t CeilDiv", "struct Tiling { uint32_t n; };",
        "void AddVf(__ubuf__ float* p) { Step(p); }", "inline void Step(T* p) { *p += 1; }",
        "__aicore__ inline void Init() { n_ = 1; }", "void add_custom(__gm__ T* x, Tiling t) {",
        "namespace host {", "#ifdef VERBOSE", "#endif", "}  // namespace host",
        "auto kTable = [](int v) { return v * 2; };"}) {
    EXPECT_NE(out.find(kept), std::string::npos) << kept << "\n" << out;
  }
  for (const char* gone : {"ReadInput", "ifstream", "std::vector<T> Run", "<<<", "main",
                           "return file.good();"}) {
    EXPECT_EQ(out.find(gone), std::string::npos) << gone << "\n" << out;
  }
  // A kernel whose qualifiers hide in a macro is still kept: it is the one launched.
  const std::string macro = "KERNEL_HEAD void add_custom(GM_ADDR x) { }\n"
                            "void Run() { add_custom<<<8, 0, s>>>(x); }\n";
  const std::string kept = WithoutHostFunctions(macro);
  EXPECT_NE(kept.find("void add_custom(GM_ADDR x) { }"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("Run"), std::string::npos) << kept;
  // Braces that do not balance (a definition split over #if branches): left as written.
  const std::string split = "#ifdef A\nvoid f() {\n#else\nvoid f(int) {\n#endif\n}\n";
  EXPECT_EQ(WithoutHostFunctions(split), split);
}

TEST(ProgramTextTest, AHostOnlyHeaderLosesItsIncludesTooButKeepsItsMacros) {
  const std::string helpers =
      "#ifndef DATA_UTILS_H\n#define DATA_UTILS_H\n#include <fstream>\n  #  include <string>\n"
      "#define INFO_LOG(fmt, ...) fprintf(stdout, fmt, ##__VA_ARGS__)\n"
      "inline bool ReadFile(const std::string& p, size_t n, void* b) {\n"
      "  std::ifstream f(p, std::ios::binary);\n  return f.good();\n}\n#endif\n";
  const std::string out = DevicePartOfHeader(helpers);
  EXPECT_EQ(Lines(out), Lines(helpers));
  EXPECT_EQ(out.find("fstream"), std::string::npos) << out;
  EXPECT_EQ(out.find("include"), std::string::npos) << out;
  EXPECT_NE(out.find("#define INFO_LOG(fmt, ...)"), std::string::npos) << out;
  EXPECT_NE(out.find("#ifndef DATA_UTILS_H"), std::string::npos) << out;
  // A header the device part uses keeps its includes.
  const std::string tiling = "#include <cstdint>\nstruct Tiling { uint32_t n; };\n";
  EXPECT_EQ(DevicePartOfHeader(tiling), tiling);
}

TEST(ProgramTextTest, OnlyNamesOfTypesAndValuesPassAsInstantiations) {
  for (const char* name : {"add_custom", "add_custom<float, 2048>", "k<_Float16, 16>",
                           "ns::k<(Mode)1>", "k<AscendC::RoundMode::CAST_NONE, 2048U>",
                           "k<long int, -3>", "k<bfloat16_t*, 1>"}) {
    EXPECT_TRUE(IsInstantiationName(name)) << name;
  }
  for (const char* name : {"", "add_custom<8>; int evil", "k<float>{}", "k<8>\n", "k<\"x\">",
                           "k<8>)(x); f(", "8k", "k<8> #"}) {
    EXPECT_FALSE(IsInstantiationName(name)) << name;
  }
  EXPECT_FALSE(IsInstantiationName("k<" + std::string(600, '1') + ">"));
}

}  // namespace
}  // namespace cannbot::ascendc
