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

char ProcRunState(pid_t pid) {
  auto text = ReadFile("/proc/" + std::to_string(pid) + "/stat", 1u << 12);
  if (!text.ok()) return '\0';
  const size_t close = text->rfind(')');  // the command name may hold anything
  return close != std::string::npos && close + 2 < text->size() ? (*text)[close + 2] : '\0';
}

}  // namespace cannbot::validator
