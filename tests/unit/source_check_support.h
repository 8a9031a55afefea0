// What the static source check's tests share (source_check_test.cc, the cheats and every
// other CheckSource test; source_check_honest_test.cc, the honest lookalikes): the category
// names a finding can carry, a readable rendering of findings, and a kernel that puts the
// line under test on line 5, so line numbers are checked for real.
#pragma once

#include <string>
#include <vector>

#include "cannbot/validator/source_check.h"

namespace cannbot::validator::source_check_test {

// SourceFinding::what, one per rule.
inline constexpr const char* kThreads = "creates threads";
inline constexpr const char* kOpenmp = "uses the OpenMP runtime (threads)";
inline constexpr const char* kProcesses = "starts processes";
inline constexpr const char* kFiles = "opens files";
inline constexpr const char* kNetwork = "uses the network";
inline constexpr const char* kSignals = "handles or sends signals";
inline constexpr const char* kExit = "ends the process";
inline constexpr const char* kSyscall = "makes raw system calls";
inline constexpr const char* kDynamic = "loads code at run time";
inline constexpr const char* kSleeps = "sleeps";
inline constexpr const char* kReserved = "uses cannbot's reserved names";
inline constexpr const char* kRedefines = "redefines timing or comparison functions";

inline std::string Render(const std::vector<SourceFinding>& findings) {
  std::string out;
  for (const SourceFinding& f : findings) {
    out += "[" + f.what + " | " + f.token + " | line " + std::to_string(f.line) + "] ";
  }
  return out.empty() ? "(no findings)" : out;
}

// A harmless kernel body around the line under test, which is placed on line 5.
inline std::string AtLineFive(const std::string& line) {
  return "#include <cstdint>\n"                                   // 1
         "#include <cmath>\n"                                     // 2
         "extern \"C\" void swish(const float* x, float* y,\n"    // 3
         "                        int64_t n) {\n"                 // 4
         "  " + line + "\n"                                       // 5
         "  for (int64_t i = 0; i < n; ++i) y[i] = x[i];\n"       // 6
         "}\n";                                                    // 7
}

}  // namespace cannbot::validator::source_check_test
