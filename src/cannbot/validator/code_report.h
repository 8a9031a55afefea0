// CodeReport: what the compiler and the object code say about a CPU kernel, the self-profile's
// evidence where no hardware counters exist (virtual machines have none).
//
// Two sources, both read from this build of the kernel:
//  * GCC's vectorisation report (-fopt-info-vec-optimized -fopt-info-vec-missed) for the
//    kernel's own loops: which innermost loops were vectorised and, for the others, why not,
//    in words ("the call to expf blocks it");
//  * the disassembly of the shared object (objdump, confined like the compiler): the mix of
//    vector and scalar floating-point arithmetic in the kernel's code, and the library math
//    functions it calls (expf, erff, ...) - each a scalar call per element.
// Whatever cannot be read (no objdump, a compiler that is not GCC) becomes a note; the report
// is evidence, never a verdict.
//
// Thread-safety: plain values and functions; AnalyseKernelCode runs child processes and may
// run concurrently with other builds.
#pragma once

#include <string>
#include <vector>

#include "cannbot/ops/op_spec.h"
#include "cannbot/validator/compiler.h"

namespace cannbot::validator {

struct LoopNote {
  int line = 0;  // in the kernel's source
  int column = 0;
  bool vectorized = false;
  std::string detail;  // "using 32 byte vectors", or why not, in words
};

struct CodeReport {
  std::vector<LoopNote> loops;        // innermost loops of the kernel's source, in line order
  int vector_fp_instructions = 0;     // packed floating-point arithmetic in the kernel's code
  int scalar_fp_instructions = 0;     // scalar floating-point arithmetic
  std::vector<std::string> math_calls;  // library math functions called ("expf"), sorted
  bool disassembled = false;          // the instruction counts and calls were read
  std::vector<std::string> notes;     // what could not be read, for people

  bool HasLoops() const { return !loops.empty(); }
  double VectorizedLoopShare() const;  // 1 when there are no loops
  // "the loop at line 9 is not vectorised: the call to expf blocks it (...)" for the loop left
  // scalar that costs most (a library call per element first, else the first); "" if none.
  std::string WorstScalarLoop() const;
  bool HasInstructionMix() const { return vector_fp_instructions + scalar_fp_instructions > 0; }
  double ScalarFpShare() const;  // scalar / (scalar + vector)
};

// Reads GCC's -fopt-info-vec output (the compile log) for the loops of `file`.
std::vector<LoopNote> ParseVectorizationReport(const std::string& log,
                                               const std::string& file = "kernel.cpp");
// Counts the floating-point arithmetic and the calls in `objdump -d` output, over the
// kernel's own functions (not the PLT or the C runtime's helpers).
void ParseDisassembly(const std::string& objdump, CodeReport* report);
// One sentence for a GCC "not vectorized" reason.
std::string ExplainVectorizationFailure(const std::string& gcc_reason);

// Builds `source` again with the vectorisation report on (through the compile cache) and
// disassembles the object. Never fails: problems are notes.
CodeReport AnalyseKernelCode(Compiler& compiler, const ops::OpSpec& op, const std::string& source,
                             const std::string& work_dir);

}  // namespace cannbot::validator
