// Shared helpers for integration tests: paths into the source tree and a validator wired to
// a store that persists across test processes (the machine model is measured once).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/util/fs.h"
#include "cannbot/validator/validator.h"

namespace cannbot::testing {

inline std::string SourcePath(const std::string& relative) {
  return std::string(CANNBOT_SOURCE_DIR) + "/" + relative;
}

inline std::string Fixture(const std::string& relative) {
  return SourcePath("tests/fixtures/" + relative);
}

// The skills (and their recipes) shipped in the source tree.
inline skills::SkillLibrary ShippedSkills() {
  std::vector<std::string> warnings;
  return skills::SkillLibrary::Load({SourcePath("skills")}, &warnings);
}

// A store shared by the integration tests of one build tree.
inline std::unique_ptr<store::Store> SharedStore() {
  auto store = store::Store::Open(std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db");
  if (!store.ok()) return nullptr;
  return std::move(store).value();
}

inline validator::KernelSource Kernel(const std::string& path) {
  auto text = ReadFile(path);
  return {path, text.ok() ? *text : std::string()};
}

// Defaults suited to tests: short run limits so failures surface fast, and the static
// source check off, so the dynamic defences are what each test exercises. The compile limit
// stays generous: an Ascend C package build takes 5-8 s on an idle 2-vCPU machine and more
// under ctest -j; the cheat corpus, whose compile-time escapes must be cut short, sets its own.
inline validator::ValidatorConfig TestConfig() {
  validator::ValidatorConfig config;
  config.compiler.source_check = false;
  config.compiler.timeout = std::chrono::milliseconds(60000);
  config.compiler.address_space_mb = 2048;
  config.numeric.call_timeout = std::chrono::milliseconds(3000);
  config.perf.max_seconds = 8;
  return config;
}

}  // namespace cannbot::testing
