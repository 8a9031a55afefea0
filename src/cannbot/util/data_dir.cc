#include "cannbot/util/data_dir.h"

#include <cstdlib>
#include <vector>

#include "cannbot/util/fs.h"

namespace cannbot {

bool RunningFromBuildTree() {
#ifdef CANNBOT_BUILD_DIR
  const std::string build = CANNBOT_BUILD_DIR;
  const std::string dir = ExecutableDir();
  return dir == build || dir.rfind(build + "/", 0) == 0;
#else
  return false;
#endif
}

std::string DataPath(const std::string& relative) {
  std::vector<std::string> roots;
  const char* env = std::getenv("CANNBOT_DATA_DIR");
  if (env != nullptr && *env != '\0') roots.push_back(env);
  const std::string installed = ExecutableDir() + "/../share/cannbot";
  roots.push_back(installed);
#ifdef CANNBOT_SOURCE_DIR
  if (RunningFromBuildTree()) roots.push_back(CANNBOT_SOURCE_DIR);
#endif
  for (const std::string& root : roots) {
    if (PathExists(root + "/" + relative)) return root + "/" + relative;
  }
  return installed + "/" + relative;
}

}  // namespace cannbot
