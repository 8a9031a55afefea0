// The fixture of the sample tests (ascendc_sample_test.cc, ascendc_sample_program_test.cc):
// examples/ascendc/samples copied with edits, each validated as a sample against a built-in
// op, and the checks of a passed or failed report. One fixture type in both files (gtest
// requires one per suite), so it lives in a named namespace.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "builtin_ops.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/util/fs.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot::engine::sample_testing {

class SampleTest : public testing::BuiltInValidatorTest {
 protected:

  // examples/ascendc/samples/NAME copied to a private directory with `edits` applied.
  Result<ascendc::Sample> EditedSample(const std::string& name, const testing::TextEdits& edits) {
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample sample,
                             ascendc::LoadSample(
                                 testing::SourcePath("examples/ascendc/samples/" + name)));
    for (auto& [path, text] : sample.files) {
      for (const auto& [from, to] : edits) {
        for (size_t at = text.find(from); at != std::string::npos;
             at = text.find(from, at + to.size())) {
          text.replace(at, from.size(), to);
        }
      }
    }
    CANNBOT_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("cannbot-sample-test"));
    CANNBOT_RETURN_IF_ERROR(WriteFilesUnder(dir.path(), sample.files));
    dirs_.push_back(std::move(dir));
    return ascendc::LoadSample(dirs_.back().path());
  }

  Result<PackageReport> Check(ascendc::Sample sample,
                              std::optional<ascendc::Sample> baseline = std::nullopt,
                              const std::string& op = "add") {
    SampleRequest request;
    request.op = op;
    request.candidate = std::move(sample);
    request.baseline = std::move(baseline);
    request.seed = 5;
    return ValidateSample(*validator_, cannbot_test::BuiltInOps(), request);
  }

  // A report of one combination, `combo`, that passed the checks; `note` in its first note.
  static void ExpectPassed(const Result<PackageReport>& report, const std::string& combo,
                           const std::string& note) {
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->runs.size(), 1u);
    EXPECT_EQ(report->runs[0].combo.Describe(), combo);
    ASSERT_TRUE(report->runs[0].check.has_value());
    EXPECT_TRUE(report->runs[0].check->ok) << report->runs[0].check->reason;
    ASSERT_FALSE(report->notes.empty());
    EXPECT_NE(report->notes[0].find(note), std::string::npos) << report->notes[0];
  }
  // A report whose one combination ran and failed the checks.
  static void ExpectFailed(const Result<PackageReport>& report) {
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->runs.size(), 1u);
    ASSERT_TRUE(report->runs[0].check.has_value());
    EXPECT_FALSE(report->runs[0].check->ok);
  }

  // The line of examples/ascendc/samples/NAME's kernel file where `text` first appears.
  int LineOf(const std::string& name, const std::string& text) {
    auto sample = ascendc::LoadSample(testing::SourcePath("examples/ascendc/samples/" + name));
    if (!sample.ok()) return 0;
    for (const auto& [path, body] : sample->files) {
      if (path != sample->kernel_file) continue;
      const size_t at = body.find(text);
      if (at == std::string::npos) return 0;
      return 1 + static_cast<int>(std::count(body.begin(), body.begin() + at, '\n'));
    }
    return 0;
  }

  std::vector<TempDir> dirs_;
};

}  // namespace cannbot::engine::sample_testing
