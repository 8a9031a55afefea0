// Where cannbot's data files (skills/, prompts/, targets/, examples/) and its runner live.
//
// Data is looked up in order: $CANNBOT_DATA_DIR, <executable's dir>/../share/cannbot (an
// install: `cmake --install`, the .deb, the Docker image), and, only for a binary that runs
// from inside the build tree it was built in (the CLI, the tests, the benchmarks), the source
// tree. An installed binary never reads the source tree, so it works with the checkout gone.
//
// Thread-safety: pure functions (read the environment and /proc/self/exe).
#pragma once

#include <string>

namespace cannbot {

// The first existing <root>/<relative>; when none exists, the path under the install root
// (so a message names where the file was expected).
std::string DataPath(const std::string& relative);

// True when this executable lies under the build directory it was built in.
bool RunningFromBuildTree();

}  // namespace cannbot
