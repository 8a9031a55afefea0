#include "cannbot/util/data_dir.h"

#include <cstdlib>

#include "cannbot/util/fs.h"

namespace cannbot {

std::string DataPath(const std::string& relative) {
  std::string roots[3];
  const char* env = std::getenv("CANNBOT_DATA_DIR");
  roots[0] = env && *env ? env : "";
  roots[1] = ExecutableDir() + "/../share/cannbot";
#ifdef CANNBOT_SOURCE_DIR
  roots[2] = CANNBOT_SOURCE_DIR;
#endif
  for (const std::string& root : roots) {
    if (!root.empty() && PathExists(root + "/" + relative)) return root + "/" + relative;
  }
  return roots[2] + "/" + relative;
}

}  // namespace cannbot
