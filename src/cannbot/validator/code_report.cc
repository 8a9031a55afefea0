#include "cannbot/validator/code_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "cannbot/util/fs.h"

namespace cannbot::validator {
namespace {

// "file:line:col: kind: message" (kind "missed" or "optimized"); false for other lines.
struct ReportLine {
  std::string file;
  int line = 0;
  int column = 0;
  std::string kind;
  std::string message;
};

bool ParseReportLine(const std::string& text, ReportLine* out) {
  const size_t kind_at = text.find(": missed: ") != std::string::npos
                             ? text.find(": missed: ")
                             : text.find(": optimized: ");
  if (kind_at == std::string::npos) return false;
  const std::string where = text.substr(0, kind_at);
  const size_t c2 = where.rfind(':');
  const size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : where.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return false;
  out->file = where.substr(0, c1);
  out->line = std::atoi(where.c_str() + c1 + 1);
  out->column = std::atoi(where.c_str() + c2 + 1);
  const size_t kind_end = text.find(": ", kind_at + 2);
  out->kind = text.substr(kind_at + 2, kind_end - kind_at - 2);
  out->message = text.substr(kind_end + 2);
  return true;
}

// Reasons GCC gives for loops that are not innermost: they say nothing about the hot loop.
bool OuterLoopReason(const std::string& reason) {
  for (const char* marker : {"loop nest containing", "outer-loop", "multiple nested loops",
                             "inner-loop", "not a simple loop nest"}) {
    if (reason.find(marker) != std::string::npos) return true;
  }
  return false;
}

// A loop GCC cannot vectorise because it already is vector code: its statements are
// intrinsics (from the *intrin.h headers) on __m128/__m256/__m512 values.
bool WrittenWithIntrinsics(const std::string& file, const std::string& reason) {
  const bool header = file.size() >= 7 && file.compare(file.size() - 7, 7, "intrin.h") == 0;
  return header || reason.find("__m128") != std::string::npos ||
         reason.find("__m256") != std::string::npos || reason.find("__m512") != std::string::npos;
}

// The function a "statement clobbers memory: _17 = __builtin_expf (_5);" line calls.
std::string CalledFunction(const std::string& reason) {
  const size_t eq = reason.find("= ");
  if (eq == std::string::npos) return "";
  std::string name = reason.substr(eq + 2, reason.find(' ', eq + 2) - eq - 2);
  if (name.rfind("__builtin_", 0) == 0) name = name.substr(10);
  return name;
}

const std::set<std::string>& MathFunctions() {
  static const std::set<std::string> names = [] {
    std::set<std::string> set;
    for (const char* base : {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
                             "erf", "erfc", "tanh", "sinh", "cosh", "sin", "cos", "tan", "atan",
                             "atan2", "asin", "acos", "sqrt", "cbrt", "fmod", "hypot", "lgamma",
                             "tgamma", "nearbyint", "rint", "round", "lround", "floor", "ceil"}) {
      set.insert(base);
      set.insert(std::string(base) + "f");
    }
    return set;
  }();
  return names;
}

bool IsFpArithmetic(std::string mnemonic, bool* packed) {
  if (mnemonic.size() > 1 && mnemonic[0] == 'v') mnemonic = mnemonic.substr(1);
  if (mnemonic.size() < 3) return false;
  const std::string suffix = mnemonic.substr(mnemonic.size() - 2);
  const bool is_packed = suffix == "ps" || suffix == "pd" || suffix == "ph";
  const bool is_scalar = suffix == "ss" || suffix == "sd" || suffix == "sh";
  if (!is_packed && !is_scalar) return false;
  static const char* const kOps[] = {"add",  "sub",  "mul",   "div",      "fmadd",  "fmsub",
                                     "fnmadd", "fnmsub", "max", "min",   "sqrt",   "rcp",
                                     "rsqrt", "round", "rndscale", "scalef", "getexp", "getmant"};
  for (const char* op : kOps) {
    if (mnemonic.rfind(op, 0) == 0) {
      *packed = is_packed;
      return true;
    }
  }
  return false;
}

// Helpers every shared object carries; their code is not the kernel's.
bool RuntimeFunction(const std::string& name) {
  static const std::set<std::string> names = {"_init", "_fini", "deregister_tm_clones",
                                              "register_tm_clones", "__do_global_dtors_aux",
                                              "frame_dummy"};
  return names.count(name) > 0 || name.find("@plt") != std::string::npos;
}

}  // namespace

std::string ExplainVectorizationFailure(const std::string& reason) {
  const std::string called = CalledFunction(reason);
  if (reason.find("clobbers memory") != std::string::npos && !called.empty()) {
    if (MathFunctions().count(called) > 0) {
      return "the call to " + called + " blocks it (a libm function may set errno, so GCC "
             "keeps it scalar, one call per element; write it as a vectorised polynomial, or "
             "use a vector math library)";
    }
    return "the call to " + called + " blocks it (a call GCC cannot vectorise)";
  }
  if (reason.find("control flow in loop") != std::string::npos) {
    return "a branch in the loop body blocks it (GCC does not turn a floating-point compare "
           "into a select under the default -ftrapping-math; use min/max or bit masks, or "
           "#pragma omp simd)";
  }
  if (reason.find("unsupported use in stmt") != std::string::npos ||
      reason.find("reduction") != std::string::npos || reason.find("no vectype") != std::string::npos) {
    return "a floating-point reduction blocks it (GCC may not reorder a running sum or max "
           "without -ffast-math: split it over several accumulators or use #pragma omp simd "
           "reduction)";
  }
  if (reason.find("number of iterations cannot be computed") != std::string::npos) {
    return "its trip count is not known when the loop starts";
  }
  if (reason.find("dependence") != std::string::npos || reason.find("alias") != std::string::npos) {
    return "a possible overlap of its pointers blocks it (mark them __restrict or use "
           "#pragma omp simd)";
  }
  if (reason.find("access") != std::string::npos || reason.find("gather") != std::string::npos ||
      reason.find("data ref") != std::string::npos) {
    return "non-contiguous or indirect memory accesses block it (make the innermost loop run "
           "along the contiguous axis)";
  }
  return "GCC: " + reason;
}

std::vector<LoopNote> ParseVectorizationReport(const std::string& log, const std::string& file) {
  std::map<std::pair<int, int>, LoopNote> loops;
  std::map<std::pair<int, int>, bool> outer;
  std::pair<int, int> current{-1, -1};
  bool reason_taken = true;
  std::istringstream in(log);
  for (std::string text; std::getline(in, text);) {
    ReportLine line;
    if (!ParseReportLine(text, &line)) continue;
    const std::pair<int, int> at{line.line, line.column};
    if (line.file == file && line.message.rfind("loop vectorized", 0) == 0) {
      LoopNote& loop = loops[at];
      // The first width GCC reports is the main loop's; later ones are its epilogues.
      if (!loop.vectorized) {
        loop = {line.line, line.column, true,
                line.message.substr(std::string("loop vectorized ").size())};
      }
      reason_taken = true;
      continue;
    }
    if (line.file == file && line.kind == "missed" && line.message == "couldn't vectorize loop") {
      LoopNote& loop = loops[at];
      loop.line = line.line;
      loop.column = line.column;
      current = at;
      reason_taken = false;
      continue;
    }
    // The first reason after a loop's "couldn't vectorize" is its own; later ones may belong
    // to inlined code GCC reports again.
    if (line.kind != "missed" || reason_taken || current.first < 0) continue;
    std::string reason = line.message;
    if (reason.rfind("not vectorized: ", 0) == 0) reason = reason.substr(16);
    reason_taken = true;
    if (OuterLoopReason(reason)) {
      outer[current] = true;
      continue;
    }
    LoopNote& loop = loops[current];
    if (WrittenWithIntrinsics(line.file, reason)) {
      loop.vectorized = true;
      loop.detail = "written with vector intrinsics";
    } else if (!loop.vectorized) {
      loop.detail = ExplainVectorizationFailure(reason);
    }
  }
  std::vector<LoopNote> out;
  for (auto& [at, loop] : loops) {
    if (outer.count(at) > 0 && !loop.vectorized) continue;
    if (!loop.vectorized && loop.detail.empty()) loop.detail = "GCC gave no reason";
    out.push_back(loop);
  }
  return out;
}

void ParseDisassembly(const std::string& objdump, CodeReport* report) {
  std::set<std::string> calls;
  bool in_kernel_code = false;
  std::istringstream in(objdump);
  for (std::string text; std::getline(in, text);) {
    if (text.rfind("Disassembly of section", 0) == 0) {
      in_kernel_code = false;
      continue;
    }
    const size_t open = text.find(" <");
    if (!text.empty() && text[0] != ' ' && open != std::string::npos && text.back() == ':') {
      const std::string name = text.substr(open + 2, text.size() - open - 4);
      in_kernel_code = !RuntimeFunction(name);
      continue;
    }
    if (!in_kernel_code) continue;
    const size_t tab = text.find('\t');
    if (tab == std::string::npos) continue;
    std::istringstream words(text.substr(tab + 1));
    std::string mnemonic;
    words >> mnemonic;
    bool packed = false;
    if (IsFpArithmetic(mnemonic, &packed)) {
      ++(packed ? report->vector_fp_instructions : report->scalar_fp_instructions);
    } else if (mnemonic == "call" || mnemonic == "jmp") {
      const size_t lt = text.find('<'), at = text.find("@plt>");
      if (lt != std::string::npos && at != std::string::npos && at > lt) {
        const std::string callee = text.substr(lt + 1, at - lt - 1);
        if (MathFunctions().count(callee) > 0) calls.insert(callee);
      }
    }
  }
  report->math_calls.assign(calls.begin(), calls.end());
}

double CodeReport::VectorizedLoopShare() const {
  if (loops.empty()) return 1;
  const auto vectorized = std::count_if(loops.begin(), loops.end(),
                                        [](const LoopNote& l) { return l.vectorized; });
  return static_cast<double>(vectorized) / static_cast<double>(loops.size());
}

std::string CodeReport::WorstScalarLoop() const {
  const LoopNote* worst = nullptr;
  for (const LoopNote& loop : loops) {
    if (loop.vectorized) continue;
    // A library call per element costs far more than any other reason: name that loop.
    const bool call = loop.detail.rfind("the call to", 0) == 0;
    if (worst == nullptr || (call && worst->detail.rfind("the call to", 0) != 0)) worst = &loop;
  }
  if (worst == nullptr) return "";
  return "the loop at line " + std::to_string(worst->line) + " is not vectorised: " + worst->detail;
}

double CodeReport::ScalarFpShare() const {
  const int total = vector_fp_instructions + scalar_fp_instructions;
  return total > 0 ? static_cast<double>(scalar_fp_instructions) / total : 0;
}

CodeReport AnalyseKernelCode(Compiler& compiler, const ops::OpSpec& op, const std::string& source,
                             const std::string& work_dir) {
  CodeReport report;
  TargetBuild with_report;
  with_report.flags = {"-fopt-info-vec-optimized", "-fopt-info-vec-missed"};
  auto built = compiler.Compile(op, source, work_dir, "kernel-report", with_report);
  if (!built.ok() || !built->ok) {
    report.notes.push_back("no vectorisation report: the kernel did not build with it");
    return report;
  }
  report.loops = ParseVectorizationReport(built->log);
  if (built->log.find(": optimized: ") == std::string::npos &&
      built->log.find(": missed: ") == std::string::npos) {
    report.notes.push_back("no vectorisation report: the compiler printed none (not GCC?)");
  }
  auto objdump = compiler.RunConfinedTool(work_dir,
                                          {"objdump", "-d", "--no-show-raw-insn",
                                           built->shared_object_path},
                                          8u << 20);
  if (!objdump.ok()) {
    report.notes.push_back("no instruction mix: " + objdump.status().message());
  } else if (!objdump->exit.Success()) {
    report.notes.push_back("no instruction mix: objdump " + objdump->exit.Describe());
  } else {
    ParseDisassembly(objdump->output, &report);
    report.disassembled = true;
  }
  return report;
}

}  // namespace cannbot::validator
