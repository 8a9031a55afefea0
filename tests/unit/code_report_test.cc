// The code evidence parsers, on text in the shapes GCC 12's -fopt-info-vec and binutils'
// objdump -d print (written here, not captured from a run).
#include "cannbot/validator/code_report.h"

#include <gtest/gtest.h>

namespace cannbot::validator {
namespace {

constexpr const char* kScalarLoop =
    "kernel.cpp:9:25: missed: couldn't vectorize loop\n"
    "/usr/include/c++/12/cmath:223:26: missed: statement clobbers memory: "
    "_17 = __builtin_expf (_5);\n";

TEST(CodeReportTest, ALibmCallIsTheReasonItsLoopStaysScalar) {
  const std::vector<LoopNote> loops = ParseVectorizationReport(kScalarLoop);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].line, 9);
  EXPECT_FALSE(loops[0].vectorized);
  EXPECT_EQ(loops[0].detail.rfind("the call to expf blocks it", 0), 0u) << loops[0].detail;
  CodeReport report;
  report.loops = loops;
  EXPECT_EQ(report.VectorizedLoopShare(), 0);
  EXPECT_NE(report.WorstScalarLoop().find("line 9"), std::string::npos);
}

TEST(CodeReportTest, OuterLoopsAndIntrinsicLoopsAreNotCountedAsScalar) {
  const std::string log =
      "kernel.cpp:8:3: missed: couldn't vectorize loop\n"
      "kernel.cpp:8:3: missed: not vectorized: loop nest containing two or more consecutive "
      "inner loops cannot be vectorized\n"
      "kernel.cpp:20:27: optimized: loop vectorized using 32 byte vectors\n"
      "kernel.cpp:20:27: optimized: loop vectorized using 16 byte vectors\n"
      "kernel.cpp:12:16: missed: couldn't vectorize loop\n"
      "/usr/lib/gcc/x86_64-linux-gnu/12/include/avxintrin.h:905:23: missed: not vectorized: "
      "no vectype for stmt: _19 = MEM[(__m256_u * {ref-all})_3];\n"
      "kernel.cpp:16:27: missed: couldn't vectorize loop\n"
      "kernel.cpp:16:27: missed: not vectorized: control flow in loop.\n";
  const std::vector<LoopNote> loops = ParseVectorizationReport(log);
  ASSERT_EQ(loops.size(), 3u);  // the outer loop at line 8 is left out
  EXPECT_EQ(loops[0].line, 12);
  EXPECT_TRUE(loops[0].vectorized);
  EXPECT_EQ(loops[0].detail, "written with vector intrinsics");
  EXPECT_EQ(loops[1].line, 16);
  EXPECT_FALSE(loops[1].vectorized);
  EXPECT_NE(loops[1].detail.find("a branch in the loop body"), std::string::npos);
  EXPECT_EQ(loops[2].line, 20);
  EXPECT_TRUE(loops[2].vectorized);
  EXPECT_EQ(loops[2].detail, "using 32 byte vectors");
}

TEST(CodeReportTest, TheLoopWithALibraryCallIsNamedFirst) {
  CodeReport report;
  report.loops = {{3, 5, false, ExplainVectorizationFailure("unsupported use in stmt")},
                  {7, 5, false, ExplainVectorizationFailure(
                                    "statement clobbers memory: _1 = __builtin_erff (_2);")},
                  {9, 5, true, "using 32 byte vectors"}};
  EXPECT_NEAR(report.VectorizedLoopShare(), 1.0 / 3, 1e-12);
  EXPECT_NE(report.WorstScalarLoop().find("line 7 is not vectorised: the call to erff"),
            std::string::npos)
      << report.WorstScalarLoop();
}

TEST(CodeReportTest, ReasonsInWords) {
  EXPECT_NE(ExplainVectorizationFailure("unsupported use in stmt").find("reduction"),
            std::string::npos);
  EXPECT_NE(ExplainVectorizationFailure("possible dependence between data-refs").find("__restrict"),
            std::string::npos);
  EXPECT_EQ(ExplainVectorizationFailure("something new in GCC 15"), "GCC: something new in GCC 15");
}

constexpr const char* kObjdump =
    "\nkernel.so:     file format elf64-x86-64\n\n\n"
    "Disassembly of section .init:\n\n"
    "0000000000001000 <_init>:\n"
    "    1000:\tsub    $0x8,%rsp\n"
    "    1004:\tmulss  %xmm0,%xmm0\n"
    "\nDisassembly of section .plt:\n\n"
    "0000000000001030 <expf@plt>:\n"
    "    1030:\tjmp    *0x2fe2(%rip)        # 4018 <expf@GLIBC_2.27>\n"
    "\nDisassembly of section .text:\n\n"
    "0000000000001110 <swish>:\n"
    "    1130:\tvmovss (%r12,%rbx,4),%xmm1\n"
    "    1136:\tvxorps 0xec2(%rip),%xmm1,%xmm0        # 2000 <_fini+0xe7c>\n"
    "    1144:\tcall   1030 <expf@plt>\n"
    "    1149:\tvaddss 0xebf(%rip),%xmm0,%xmm0        # 2010 <_fini+0xe8c>\n"
    "    1157:\tvdivss %xmm0,%xmm1,%xmm1\n"
    "    1160:\tvfmadd231ps %ymm2,%ymm1,%ymm0\n"
    "    1166:\tcall   1040 <memcpy@plt>\n"
    "    1174:\tret\n"
    "\n0000000000001180 <frame_dummy>:\n"
    "    1180:\tmulsd  %xmm0,%xmm0\n";

TEST(CodeReportTest, TheInstructionMixCountsOnlyTheKernelsCode) {
  CodeReport report;
  ParseDisassembly(kObjdump, &report);
  EXPECT_EQ(report.scalar_fp_instructions, 2);  // vaddss, vdivss (not vmovss, _init, frame_dummy)
  EXPECT_EQ(report.vector_fp_instructions, 1);  // vfmadd231ps (vxorps is not arithmetic)
  EXPECT_EQ(report.math_calls, std::vector<std::string>{"expf"});  // memcpy is not math
  EXPECT_NEAR(report.ScalarFpShare(), 2.0 / 3, 1e-12);
}

}  // namespace
}  // namespace cannbot::validator
