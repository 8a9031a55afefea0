// Env: the operating system as the core sees it (whole files, a steady clock, child
// processes), behind one interface so that tests can substitute fakes: a clock that jumps, a
// file that cannot be written, a command that fails. In the spirit of LevelDB's Env.
//
// Env::Default() is the real thing: it forwards to util/fs.h and util/subprocess.h. A fake
// usually derives from EnvWrapper and overrides only what it changes.
//
// Ownership: Env::Default() is a process-wide object that lives until exit and must not be
// deleted; whoever takes an Env* borrows it and the owner keeps it alive for as long.
// Thread-safety: the default Env is stateless and safe to use from any thread; fakes document
// their own.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "cannbot/util/status.h"
#include "cannbot/util/subprocess.h"

namespace cannbot {

// One command to run to completion (see RunCommand).
struct CommandOptions {
  SpawnOptions spawn;
  std::chrono::milliseconds timeout{60000};  // then its whole process group is killed
  size_t output_cap = 1u << 20;              // bytes of stdout+stderr kept
};

class Env {
 public:
  Env() = default;
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  virtual ~Env() = default;

  // The real operating system; never null, never deleted, stateless.
  static Env* Default();

  // The whole file. NotFound when it does not exist, InvalidArgument when it is a directory
  // or larger than `max_bytes`, IoError when it cannot be read.
  virtual Result<std::string> ReadFile(const std::string& path, size_t max_bytes) = 0;
  // Writes `data` to `path` (mode 0600), replacing it; IoError naming the path on failure.
  virtual Status WriteFile(const std::string& path, const std::string& data) = 0;
  // Seconds on a monotonic clock from an arbitrary origin: only differences mean anything.
  virtual double NowSeconds() = 0;
  // Runs a command to completion, stdout and stderr captured. Fails only when it cannot be
  // started; a command that exits non-zero, crashes or times out is a CommandResult.
  virtual Result<CommandResult> Run(const CommandOptions& options) = 0;
};

// Forwards every call to another Env (borrowed; it must outlive the wrapper).
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override {
    return target_->ReadFile(path, max_bytes);
  }
  Status WriteFile(const std::string& path, const std::string& data) override {
    return target_->WriteFile(path, data);
  }
  double NowSeconds() override { return target_->NowSeconds(); }
  Result<CommandResult> Run(const CommandOptions& options) override {
    return target_->Run(options);
  }

 private:
  Env* target_;
};

}  // namespace cannbot
