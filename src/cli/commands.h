// The `cannbot` command line: one function per subcommand, registered in main.cc.
//
// Each Register* adds a CLI11 subcommand and returns it with a callable that runs it after
// parsing and yields the process exit code. Commands print results on stdout and errors on stderr
// ("cannbot: error: ..."); with --json they print machine-readable output on stdout instead,
// errors in the one error shape {"error": {"code", "message"}}.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cannbot/ascendc/sample.h"
#include "cannbot/config/config.h"
#include "cannbot/ops/registry.h"
#include "cannbot/util/status.h"

namespace cannbot::cli {

// Exit codes shared by every command (the CLI *contract*).
inline constexpr int kExitOk = 0;        // accepted / success
inline constexpr int kExitRejected = 1;  // rejected / nothing found
inline constexpr int kExitError = 2;     // usage or internal error

struct Command {
  CLI::App* subcommand;     // owned by the parent CLI::App
  std::function<int()> run;  // runs the command after parsing; returns the exit code
};

// Commands that look ops up get the registry main() built; it outlives every command.
Command RegisterValidate(CLI::App& app, const ops::Registry& registry);
Command RegisterOps(CLI::App& app, const ops::Registry& registry);
Command RegisterDiagnose(CLI::App& app, const ops::Registry& registry);
Command RegisterSuggest(CLI::App& app, const ops::Registry& registry);
Command RegisterSkills(CLI::App& app, const ops::Registry& registry);
Command RegisterServe(CLI::App& app, const ops::Registry& registry);
Command RegisterWorker(CLI::App& app, const ops::Registry& registry);
Command RegisterCi(CLI::App& app, const ops::Registry& registry);
Command RegisterMachine(CLI::App& app);
Command RegisterEval(CLI::App& app, const ops::Registry& registry);

// Adds --insecure-sandbox (docs/security.md) to a command that runs untrusted kernels.
void AddInsecureSandboxFlag(CLI::App* cmd, bool* insecure_sandbox);

// Adds --device-profile FILE (the config's ascendc_device, for this run).
void AddDeviceProfileFlag(CLI::App* cmd, std::string* path);

// Adds --operator (the operator of a package that defines several) to a command that takes
// --package.
void AddOperatorFlag(CLI::App* cmd, std::string* operator_name);

// Adds --define/-D NAME[=NUMBER] (repeatable): a macro an Ascend C sample's own build defines.
void AddDefineFlag(CLI::App* cmd, std::vector<std::string>* defines);
// Reads the sample in DIR (ascendc::LoadSample) with the --define values checked and set.
Result<ascendc::Sample> LoadCliSample(const std::string& dir,
                                      const std::vector<std::string>& defines);

// cannbot's own settings for a command that builds a validator: FILE (--config, "" = none)
// with the CANNBOT_* variables over it, and --insecure-sandbox and --device-profile ("" = not
// given) over both.
Result<config::Config> LoadCommandConfig(const std::string& file, bool insecure_sandbox,
                                         const std::string& device_profile);

// Prints an error for people (stderr) or machines (stdout JSON) and returns kExitError.
int ReportError(const Status& status, bool json);

}  // namespace cannbot::cli
