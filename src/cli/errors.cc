#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/commands.h"

namespace cannbot::cli {

int ReportError(const Status& status, bool json) {
  if (json) {
    nlohmann::json error = {
        {"error", {{"code", Status::CodeName(status.code())}, {"message", status.message()}}}};
    std::printf("%s\n", error.dump(2).c_str());
  }
  std::fprintf(stderr, "cannbot: error: %s\n", status.message().c_str());
  return kExitError;
}

}  // namespace cannbot::cli
