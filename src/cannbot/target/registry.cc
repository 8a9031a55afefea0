#include "cannbot/target/registry.h"

namespace cannbot::target {

// The registrations: each target's file defines its accessor.
const Target& CpuTarget();
const Target& AscendcTarget();

const std::vector<const Target*>& All() {
  static const std::vector<const Target*> all = {&CpuTarget(), &AscendcTarget()};
  return all;
}

const Target& Default() { return *All().front(); }

const Target& OrDefault(const Target* t) { return t != nullptr ? *t : Default(); }

std::string Names() {
  std::string names;
  for (const Target* t : All()) names += (names.empty() ? "" : ", ") + std::string(t->name());
  return names;
}

Result<const Target*> Parse(std::string_view name, std::string_view field) {
  for (const Target* t : All()) {
    if (t->name() == name) return t;
  }
  return Status::InvalidArgument("field '" + std::string(field) + "' must be one of: " + Names() +
                                 " (got \"" + std::string(name) + "\")");
}

}  // namespace cannbot::target
