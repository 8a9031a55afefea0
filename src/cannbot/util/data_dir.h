// Where cannbot's data files (skills/, prompts/) live.
//
// Looked up in order: $CANNBOT_DATA_DIR, <executable's dir>/../share/cannbot (an install),
// the source tree the binary was built from.
//
// Thread-safety: pure function (reads the environment).
#pragma once

#include <string>

namespace cannbot {

// The first existing <root>/<relative>, else the path under the source tree.
std::string DataPath(const std::string& relative);

}  // namespace cannbot
