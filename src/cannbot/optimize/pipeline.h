// Suggest: one whole optimisation, as the CLI and the daemon run it.
//
//   the user's kernel -> compile + numeric check (is it correct at all?)
//   -> profile (imported from the user's file, else measured here) -> diagnosis
//   -> skills that match -> the generate/validate/repair loop -> report
//
// A kernel that fails its own check is not an error: the report says so (kernel_check), since
// telling an author that their change broke the numbers is itself worth a report.
//
// Ownership: borrows everything in SuggestContext. Thread-safety: as the Validator and
// Provider allow; one Suggest per Provider at a time.
#pragma once

#include <optional>
#include <string>

#include "cannbot/optimize/loop.h"
#include "cannbot/profile/import.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/validator/validator.h"

namespace cannbot::optimize {

struct SuggestRequest {
  std::string op;
  validator::KernelSource kernel;
  std::string profile_path;           // "" = no file
  std::string profile_text;           // an uploaded profile, when profile_path is empty
  profile::ImportOptions profile_options;
  std::string profile_kernel;         // which kernel of a multi-kernel profile ("" = hottest)
  std::string target = "cpu";
  std::optional<uint64_t> seed;
};

struct SuggestContext {
  validator::Validator* validator = nullptr;
  Provider* provider = nullptr;
  const skills::SkillLibrary* skills = nullptr;
  store::Store* store = nullptr;  // may be null
  LoopConfig loop;
};

struct SuggestResult {
  OptimizeReport report;
  validator::KernelCheck kernel_check;  // the user's kernel through compile + numeric
};

// Errors: NotFound (unknown op), InvalidArgument (unreadable profile), and the provider's
// failure when it produced nothing at all.
Result<SuggestResult> Suggest(const SuggestRequest& request, const SuggestContext& context,
                              const ProgressFn& progress = {});

// Facts about this machine for prompts: CPU, vector ISA, roofline figures, compiler flags.
std::string DescribeHardware(const validator::MachineModel& machine,
                             const validator::CompilerConfig& compiler);

}  // namespace cannbot::optimize
