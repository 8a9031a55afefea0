// SourceCheck: a cheap static look at a kernel's source before it is compiled.
//
// It flags what a kernel has no reason to contain: threads (the OpenMP runtime included),
// processes, files, sockets, signals, process exit, raw system calls, dynamic loading, and
// cannbot's own names. Each rule targets a behaviour, not a spelling: comments and string
// literals (raw ones too) are ignored, except the text of inline assembly, where a `syscall`
// instruction hides; `#pragma omp` is allowed (it cannot start threads without the OpenMP
// runtime, see compiler.h), and OpenMP calls under `#ifdef _OPENMP` are never compiled. This
// is a first line that gives clear reasons early; the sandbox and the output checks remain
// the real defence, and they are tested without it.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

namespace cannbot::validator {

struct SourceFinding {
  std::string what;   // "creates threads"
  std::string token;  // "std::thread"
  int line = 0;
};

std::vector<SourceFinding> CheckSource(const std::string& source);

// "the source creates threads (`std::thread` at line 12)"; findings must not be empty.
std::string DescribeFindings(const std::vector<SourceFinding>& findings);

}  // namespace cannbot::validator
