#include "cannbot/util/env.h"

#include "cannbot/util/fs.h"

namespace cannbot {
namespace {

// The operating system itself: no state of its own, so one object serves every thread.
class SystemEnv final : public Env {
 public:
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    return ::cannbot::ReadFile(path, max_bytes);
  }
  Status WriteFile(const std::string& path, const std::string& data) override {
    return ::cannbot::WriteFile(path, data);
  }
  double NowSeconds() override {
    return std::chrono::duration<double>(SteadyClock::now().time_since_epoch()).count();
  }
  Result<CommandResult> Run(const CommandOptions& options) override {
    return RunCommand(options.spawn, options.timeout, options.output_cap);
  }
};

}  // namespace

Env* Env::Default() {
  static SystemEnv* const env = new SystemEnv();  // never destroyed: usable during exit
  return env;
}

}  // namespace cannbot
