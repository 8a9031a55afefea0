// Prompts: the system, optimize and repair templates (prompts/*.md) and their rendering.
//
// Templates use {{name}} placeholders from a fixed vocabulary (kKnownPlaceholders). Loading
// fails on a placeholder outside it; rendering fails on a placeholder without a value, so a
// typo never reaches a model silently. Skills are packed under a token budget by priority:
// whole skill bodies first, then their references; the kernel, the op contract, the diagnosis
// and the output format are never trimmed. Tokens are estimated as bytes / 4.
//
// Thread-safety: a loaded PromptLibrary is immutable and safe to share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/ops/op_spec.h"
#include "cannbot/skills/skill.h"
#include "cannbot/util/status.h"

namespace cannbot::prompt {

extern const std::vector<std::string> kKnownPlaceholders;

// Replaces every {{name}}; an unknown name or a missing value is an error naming both the
// placeholder and `template_name`.
Result<std::string> RenderTemplate(const std::string& text,
                                   const std::map<std::string, std::string>& values,
                                   const std::string& template_name);

int EstimateTokens(const std::string& text);

struct PromptInputs {
  const ops::OpSpec* op = nullptr;
  std::string kernel_source;  // the kernel to improve (the user's, or the best so far)
  const diagnosis::Diagnosis* diagnosis = nullptr;
  std::vector<skills::SkillMatch> skills;  // best first
  std::string hardware;  // facts about the target machine
  std::string target;  // the target's name
  std::string contract_note;  // target-specific contract text, after the op's own
  std::string output_format;  // "" = the template's default (the C++ kernel contract)
};

struct RenderedPrompt {
  std::string system;
  std::string user;
  std::vector<std::string> skills_used;  // "name" or "name (+references)"
  std::vector<std::string> skills_trimmed;
  int estimated_tokens = 0;

  // Both messages as one text, for storing with an attempt.
  std::string Transcript() const;
};

class PromptLibrary {
 public:
  // Reads system.md, optimize.md and repair.md from `directory`.
  static Result<PromptLibrary> Load(const std::string& directory);

  Result<RenderedPrompt> Optimize(const PromptInputs& inputs, int token_budget) const;
  // A repair request: the failed code and what the validator said about it.
  Result<RenderedPrompt> Repair(const PromptInputs& inputs, const std::string& failed_code,
                                const std::string& feedback, int token_budget) const;

 private:
  Result<RenderedPrompt> Render(const std::string& user_template, const std::string& name,
                                const PromptInputs& inputs,
                                std::map<std::string, std::string> values,
                                int token_budget) const;

  std::string system_;
  std::string optimize_;
  std::string repair_;
};

// The op's contract as prompt text: signature, semantics, shapes, tolerance.
std::string DescribeOp(const ops::OpSpec& op);
// The diagnosis as prompt text: findings with evidence and remedies.
std::string DescribeDiagnosis(const diagnosis::Diagnosis& diagnosis);

}  // namespace cannbot::prompt
