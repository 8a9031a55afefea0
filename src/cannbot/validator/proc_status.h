// ProcState: what the operating system, not a child, says about a child process: its
// /proc/<pid>/status, field by field (threads, signal masks, capabilities, no_new_privs,
// seccomp). The kernel runner checks its confinement and its state after every call here.
//
// Thread-safety: plain values and a free function.
#pragma once

#include <sys/types.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace cannbot::validator {

// What the kernel, not the child, says about the child: /proc/<pid>/status, field by field.
struct ProcState {
  std::vector<std::pair<std::string, std::string>> fields;  // every "Name:\tvalue" line

  bool read() const { return !fields.empty(); }
  std::string Field(const std::string& name) const {
    for (const auto& [key, value] : fields) {
      if (key == name) return value;
    }
    return "";
  }
  int Threads() const { return std::atoi(Field("Threads").c_str()); }
  // The blocked, ignored and caught signal masks.
  std::string Signals() const {
    return Field("SigBlk") + "/" + Field("SigIgn") + "/" + Field("SigCgt");
  }
};

ProcState ReadProcState(pid_t pid);
// The state letter of /proc/<pid>/stat ('R', 'S', 'T' stopped, 'Z', ...); '\0' when gone.
char ProcRunState(pid_t pid);

}  // namespace cannbot::validator
