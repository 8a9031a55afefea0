#include "cannbot/validator/proc_status.h"

#include <sstream>

#include "cannbot/util/fs.h"

namespace cannbot::validator {

ProcState ReadProcState(pid_t pid) {
  ProcState state;
  auto text = ReadFile("/proc/" + std::to_string(pid) + "/status", 1u << 16);
  if (!text.ok()) return state;
  std::stringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t value = line.find_first_not_of(" \t", colon + 1);
    state.fields.emplace_back(line.substr(0, colon),
                              value == std::string::npos ? "" : line.substr(value));
  }
  return state;
}

}  // namespace cannbot::validator
