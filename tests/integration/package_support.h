// Helpers for tests that send one of the example Ascend C operator packages somewhere (a
// daemon job, the CLI): the package narrowed to float32, so a test that is about the job and
// not about dtypes builds and runs one combination instead of three; and the fixture of the
// tests that validate packages and samples in process.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builtin_ops.h"
#include "cannbot/ascendc/package.h"
#include "cannbot/engine/package_suggest.h"
#include "cannbot/llm/chat_client.h"
#include "cannbot/llm/http_client.h"
#include "cannbot/skills/skill.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/validator/validator.h"
#include "integration/fake_llm_server.h"
#include "integration/test_support.h"

namespace cannbot::testing {

using TextEdits = std::vector<std::pair<std::string, std::string>>;  // {from, to}

// A validator over the built-in ops on the tests' shared store, set up for each test.
class BuiltInValidatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = SharedStore();
    ASSERT_NE(store_, nullptr);
    validator_ = std::make_unique<validator::Validator>(TestConfig(), store_.get(),
                                                        cannbot_test::BuiltInOps());
  }

  // Suggests for `request` (its op, package or sample, samples and rounds) with the scripted
  // model behind `server` and the bundled skills.
  Result<engine::PackageSuggestion> SuggestWith(const FakeLlmServer& server,
                                                const engine::PackageSuggestRequest& request) {
    llm::LlmConfig config;
    config.base_url = server.base_url();
    config.model = "scripted";
    std::unique_ptr<llm::HttpClient> http = llm::NewCurlHttpClient();
    llm::ChatClient chat(config, http.get());
    std::vector<std::string> warnings;
    const skills::SkillLibrary skills = skills::SkillLibrary::Load({DataPath("skills")}, &warnings);
    return engine::SuggestForPackage(*validator_, cannbot_test::BuiltInOps(), skills, chat,
                                     request);
  }

  std::unique_ptr<store::Store> store_;
  std::unique_ptr<validator::Validator> validator_;
};

// examples/ascendc/packages/NAME with every occurrence of each `from` in its files replaced,
// in order; empty files when the package cannot be read (the caller's ASSERT says so).
inline ascendc::PackageFiles EditedExamplePackage(const std::string& name, const TextEdits& edits) {
  auto package = ascendc::LoadPackage(SourcePath("examples/ascendc/packages/" + name));
  if (!package.ok()) return {};
  for (auto& [path, text] : package->files) {
    for (const auto& [from, to] : edits) {
      for (size_t at = text.find(from); at != std::string::npos;
           at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
      }
    }
  }
  return package->files;
}

// examples/ascendc/packages/NAME with its OpDef's dtype lists cut to {DT_FLOAT}.
inline ascendc::PackageFiles FloatOnlyExamplePackage(const std::string& name) {
  return EditedExamplePackage(
      name, {{"{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32}", "{ge::DT_FLOAT}"},  // add
             {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}", "{ge::FORMAT_ND}"},
             {"{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}", "{ge::DT_FLOAT}"},
             {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}", "{ge::FORMAT_ND}"}});
}

// The model's answer that replaces the op_kernel/ files with those of `files`.
inline std::string KernelFilesAnswer(const ascendc::PackageFiles& files) {
  std::string answer = "Double buffering and whole-tile copies.\n\n";
  for (const auto& [path, text] : files) {
    if (path.rfind("op_kernel/", 0) == 0) answer += "File: " + path + "\n```cpp\n" + text + "```\n";
  }
  return answer;
}

}  // namespace cannbot::testing
