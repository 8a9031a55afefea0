#include "cannbot/engine/package_suggest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include "cannbot/ascendc/device_profile.h"
#include "cannbot/util/diff.h"

namespace cannbot::engine {
namespace {

std::string Fence(const std::string& path, const std::string& text) {
  return "File: " + path + "\n```cpp\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") +
         "```\n\n";
}

std::string ListCombinations(const ascendc::OpDefinition& def) {
  std::string out;
  for (const ascendc::DtypeCombo& c : ascendc::Combinations(def)) out += "- " + c.Describe() + "\n";
  return out;
}

// The task: the package's OpDef combinations, or the sample's launch, must stay correct and
// get faster.
std::string Task(const ops::OpSpec& op, const PackageSuggestRequest& request,
                 const PackageReport& check, const ascendc::DeviceProfile& device) {
  const std::string goal = " faster on " + device.name + " without changing what it computes. "
                           "It implements op `" + op.name + "`: " + op.semantics + "\n\n";
  if (!request.sample) {
    return "Make this Ascend C operator package" + goal + "Its OpDef (" + check.definition.type +
           ") declares these dtype combinations; every one must stay correct under the CANN "
           "precision standard and get faster:\n" + ListCombinations(check.definition);
  }
  std::string launch;
  for (const std::string& note : check.notes) launch += "- " + note + "\n";
  for (const PackageRun& run : check.runs) launch += "- tensors: " + run.combo.Describe() + "\n";
  const ascendc::Sample& sample = *request.sample;
  const std::string parts =
      sample.kernel_file == sample.host_file
          ? "a single-file program, " + sample.kernel_file + ": the kernel " + sample.entry +
                ", the host code that launches it with <<<>>> and main()"
          : "a kernel file, " + sample.kernel_file + ", and the host program that launches it, " +
                sample.host_file;
  std::string defines;
  for (const std::string& d : sample.defines) defines += (defines.empty() ? "" : ", ") + d;
  return "Make this Ascend C kernel-launch sample (" + parts + ")" + goal +
         (defines.empty() ? ""
                          : "Its build defines " + defines + " (as -D on every compile).\n") +
         "Its host program's launch, which must stay correct under the CANN precision standard "
         "and get faster:\n" + launch;
}

std::string Prompt(const ops::OpSpec& op, const PackageSuggestRequest& request,
                   const ascendc::PackageFiles& files, const PackageReport& check,
                   const ascendc::DeviceProfile& device, const skills::SkillLibrary& skills) {
  std::ostringstream out;
  out << "# Task\n\n" << Task(op, request, check, device) << "\n# Device\n\n" << ascendc::DescribeDevice(device) << "\n";
  if (const skills::Skill* skill = skills.Find(kPackageSkill)) {
    out << "# What good Ascend C kernels do\n\n" << skill->body << "\n";
  }
  out << (request.sample ? "# The sample\n\n" : "# The package\n\n") << RenderPackageFiles(files);
  out << "# How to answer\n\nReturn every file you change in full, each as a line `File: <path>` "
         "followed by one ```cpp fenced block. "
      << (request.sample
              ? "Keep the file names, the kernel's entry point and parameters, and the tensors "
                "the host program allocates (their sizes and dtypes); the host program may "
                "change the launch's block dim and tiling. "
              : "Keep the file names, the OpDef's inputs, outputs and dtypes, the tiling "
                "struct's registration and the kernel's entry point and parameters. ")
      << "Files you do not return stay as they are.\n";
  return out.str();
}

// The package with `changes` applied (new paths added).
ascendc::PackageFiles Apply(const ascendc::PackageFiles& files, const ascendc::PackageFiles& changes) {
  std::map<std::string, std::string> merged(files.begin(), files.end());
  for (const auto& [path, text] : changes) merged[path] = text;
  return {merged.begin(), merged.end()};
}

double Speedup(const PackageRun& run) { return run.verdict->perf ? run.verdict->perf->speedup : 0; }

// Accepted only when every combination that ran was; its speedup is the smallest of theirs,
// and its verdict that combination's (the first failing one's when rejected).
void Judge(const PackageReport& report, PackageAttempt* attempt) {
  attempt->accepted = report.ok();
  const PackageRun* slowest = nullptr;
  const PackageRun* failed = nullptr;
  for (const PackageRun& run : report.runs) {
    if (!run.skipped.empty() || !run.verdict) continue;
    if (!run.verdict->accepted && failed == nullptr) failed = &run;
    if (slowest == nullptr || Speedup(run) < Speedup(*slowest)) slowest = &run;
  }
  attempt->speedup = slowest != nullptr ? Speedup(*slowest) : 0;
  if (failed != nullptr) {
    attempt->reason = failed->combo.Describe() + ": " + failed->verdict->reason;
    attempt->verdict = failed->verdict;
  } else if (slowest != nullptr) {
    attempt->verdict = slowest->verdict;
  }
  if (!attempt->accepted && attempt->reason.empty()) {
    attempt->reason = "no dtype combination of the answer could run";
  }
  if (attempt->accepted) {
    char text[96];
    std::snprintf(text, sizeof(text), "accepted: an estimated %.2fx in its slowest combination",
                  attempt->speedup);
    attempt->reason = text;
  }
}

// The original as it is: every combination of a package, a sample's one launch.
Result<PackageReport> CheckOriginal(validator::Validator& validator, const ops::Registry& registry,
                                    const PackageSuggestRequest& request) {
  if (request.sample) {
    return ValidateSample(validator, registry,
                          {request.op, *request.sample, std::nullopt, request.seed, std::nullopt});
  }
  return ValidatePackage(validator, registry,
                         {request.op, request.package, std::nullopt, request.seed, std::nullopt});
}

// An answer (the original's files with its changes) judged against the original.
Result<PackageReport> CheckAnswer(validator::Validator& validator, const ops::Registry& registry,
                                  const PackageSuggestRequest& request, const std::string& label,
                                  ascendc::PackageFiles files) {
  if (request.sample) {
    CANNBOT_ASSIGN_OR_RETURN(ascendc::Sample candidate,
                             ascendc::SampleFromFiles(label, std::move(files), request.sample->data));
    candidate.defines = request.sample->defines;  // built as the original is
    return ValidateSample(validator, registry,
                          {request.op, candidate, *request.sample, request.seed,
                           request.min_speedup});
  }
  CANNBOT_ASSIGN_OR_RETURN(ascendc::Package candidate,
                           ascendc::PackageFromFiles(label, std::move(files),
                                                     request.package.chosen_operator));
  return ValidatePackage(validator, registry,
                         {request.op, candidate, request.package, request.seed,
                          request.min_speedup});
}

std::string Feedback(const std::vector<PackageAttempt>& round) {
  std::string out = "Your previous answers were validated:\n";
  for (const PackageAttempt& a : round) {
    out += "- answer " + std::to_string(a.sample + 1) + ": " + a.reason + "\n";
  }
  return out + "Answer again in the same format with a corrected, faster package.\n";
}

}  // namespace

std::string RenderPackageFiles(const ascendc::PackageFiles& files) {
  std::string out;
  for (const auto& [path, text] : files) out += Fence(path, text);
  return out;
}

ascendc::PackageFiles ExtractPackageFiles(const std::string& answer) {
  static const std::regex kHeader(R"(^\s*(?://\s*|\*\*|#+\s*)?[Ff][Ii][Ll][Ee]:\s*\**\s*`?([^`\s*]+)`?\**\s*$)");
  ascendc::PackageFiles files;
  std::istringstream in(answer);
  std::string line, path;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, kHeader)) {
      path = m[1].str();
      continue;
    }
    const size_t fence = line.find("```");
    if (path.empty() || fence == std::string::npos || line.find_first_not_of(" \t") != fence) {
      continue;
    }
    std::string text;
    while (std::getline(in, line)) {
      const size_t close = line.find("```");
      if (close != std::string::npos && line.find_first_not_of(" \t") == close) break;
      text += line + "\n";
    }
    files.push_back({path, text});
    path.clear();
  }
  return files;
}

Result<PackageSuggestion> SuggestForPackage(validator::Validator& validator,
                                            const ops::Registry& registry,
                                            const skills::SkillLibrary& skills,
                                            llm::ChatClient& chat,
                                            const PackageSuggestRequest& request) {
  const ops::OpSpec* op = registry.Find(request.op);
  if (op == nullptr) return Status::NotFound("unknown op '" + request.op + "'");
  const ascendc::PackageFiles& original =
      request.sample ? request.sample->files : request.package.files;
  PackageSuggestion result;
  result.op = op->name;
  result.package = request.sample ? request.sample->Describe() : request.package.Describe();
  CANNBOT_ASSIGN_OR_RETURN(result.check, CheckOriginal(validator, registry, request));
  if (!result.check.ok()) return result;
  const PackageReport& check = result.check;
  std::vector<llm::ChatMessage> messages = {
      {"system", "You are an expert Ascend C operator developer. You make Ascend C kernels "
                 "faster on Ascend NPUs without changing what they compute."},
      {"user", Prompt(*op, request, original, check, validator.config().device, skills)}};
  auto stopped = [&] { return request.stop != nullptr && request.stop->load(); };
  for (int round = 0; round <= request.rounds && !result.found() && !stopped(); ++round) {
    CANNBOT_ASSIGN_OR_RETURN(llm::Completion answers,
                             chat.Complete(messages, request.samples, request.stop));
    std::vector<PackageAttempt> this_round;
    for (size_t i = 0; i < answers.choices.size(); ++i) {
      PackageAttempt attempt;
      attempt.round = round;
      attempt.sample = static_cast<int>(i);
      attempt.answer = answers.choices[i];
      const auto start = std::chrono::steady_clock::now();
      attempt.changes = ExtractPackageFiles(answers.choices[i]);
      const ascendc::PackageFiles& changes = attempt.changes;
      Result<PackageReport> report =
          changes.empty()
              ? Result<PackageReport>(Status::InvalidArgument(
                    "the answer has no `File: <path>` line before a fenced block"))
              : CheckAnswer(validator, registry, request,
                            "answer " + std::to_string(round) + "." + std::to_string(i + 1),
                            Apply(original, changes));
      if (!report.ok()) {
        attempt.reason = report.status().message();
      } else {
        Judge(*report, &attempt);
      }
      attempt.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (attempt.accepted &&
          (!result.found() || attempt.speedup > result.attempts[result.best].speedup)) {
        result.best = static_cast<int>(result.attempts.size());
      }
      if (request.on_attempt) request.on_attempt(attempt);
      this_round.push_back(attempt);
      result.attempts.push_back(std::move(attempt));
    }
    messages.push_back({"assistant", answers.choices.empty() ? "" : answers.choices.front()});
    messages.push_back({"user", Feedback(this_round)});
  }
  if (result.found()) {
    const std::map<std::string, std::string> before(original.begin(), original.end());
    for (const auto& [path, text] : result.attempts[result.best].changes) {
      const auto old = before.find(path);
      result.diff += UnifiedDiff(old != before.end() ? old->second : "", text, "a/" + path,
                                 "b/" + path);
    }
  }
  return result;
}

}  // namespace cannbot::engine
