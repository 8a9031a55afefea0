#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/commands.h"

namespace cannbot::cli {

void AddInsecureSandboxFlag(CLI::App* cmd, bool* insecure_sandbox) {
  cmd->add_flag("--insecure-sandbox", *insecure_sandbox,
                 "Run untrusted kernels even where this machine cannot apply a sandbox layer "
                 "(each missing layer is then listed in every report)");
}

void AddDeviceProfileFlag(CLI::App* cmd, std::string* path) {
  cmd->add_option("--device-profile", *path,
                  "For --target ascendc: a TOML file of the NPU's figures (ub_bytes, "
                  "vector_cores, ...; docs/ascendc.md), in place of the Ascend 910B's "
                  "(default: the config's ascendc_device)");
}

void AddOperatorFlag(CLI::App* cmd, std::string* operator_name) {
  cmd->add_option("--operator", *operator_name,
                  "The operator to run of a package that defines several (its OpDef type, "
                  "AddCustom, or its kernel entry, add_custom)");
}

void AddDefineFlag(CLI::App* cmd, std::vector<std::string>* defines) {
  cmd->add_option("-D,--define", *defines,
                  "A macro the Ascend C sample's own build defines (its CMakeLists' compile "
                  "definitions), NAME or NAME=NUMBER, e.g. -D SCENARIO_NUM=1; repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

Result<ascendc::Sample> LoadCliSample(const std::string& dir,
                                      const std::vector<std::string>& defines) {
  CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample sample, ascendc::LoadSample(dir));
  auto parsed = ascendc::ParseSampleDefines(defines);
  if (!parsed.ok()) return Status::InvalidArgument("--define: " + parsed.status().message());
  sample.defines = std::move(parsed).value();
  return sample;
}

Result<config::Config> LoadCommandConfig(const std::string& file, bool insecure_sandbox,
                                         const std::string& device_profile) {
  config::Config config;
  if (!file.empty()) CANNBOT_RETURN_IF_ERROR(config::LoadFile(file, &config));
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(&config));
  if (insecure_sandbox) config.insecure_sandbox = true;
  if (!device_profile.empty()) config.ascendc_device = device_profile;
  return config;
}

int ReportError(const Status& status, bool json) {
  if (json) {
    nlohmann::json error = {
        {"error", {{"code", Status::CodeName(status.code())}, {"message", status.message()}}}};
    std::printf("%s\n", error.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  std::fprintf(stderr, "cannbot: error: %s\n", status.message().c_str());
  return kExitError;
}

}  // namespace cannbot::cli
