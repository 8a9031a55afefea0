// The built-in op registry for tests: one value per test binary, so tests may keep pointers to
// its ops. Production code never has one of these: the composition roots build the registry
// and pass it down.
#pragma once

#include "cannbot/ops/registry.h"

namespace cannbot_test {

inline const cannbot::ops::Registry& BuiltInOps() {
  static const cannbot::ops::Registry registry = cannbot::ops::Registry::BuiltIns();
  return registry;
}

}  // namespace cannbot_test
