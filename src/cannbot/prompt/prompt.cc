#include "cannbot/prompt/prompt.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cannbot/util/fs.h"

namespace cannbot::prompt {

const std::vector<std::string> kKnownPlaceholders = {
    "op_name",  "op_contract", "kernel_source", "diagnosis", "skills",    "hardware",
    "target",   "output_format", "failed_code", "feedback",
};

namespace {

const std::regex& PlaceholderPattern() {
  static const std::regex pattern(R"(\{\{\s*([A-Za-z0-9_]+)\s*\}\})");
  return pattern;
}

Status CheckPlaceholders(const std::string& text, const std::string& name) {
  const std::set<std::string> known(kKnownPlaceholders.begin(), kKnownPlaceholders.end());
  for (std::sregex_iterator it(text.begin(), text.end(), PlaceholderPattern()), end; it != end;
       ++it) {
    if (!known.count((*it)[1].str())) {
      return Status::InvalidArgument(name + ": unknown placeholder {{" + (*it)[1].str() + "}}");
    }
  }
  return Status::Ok();
}

const char* kOutputFormat =
    "Reply with the complete new kernel as exactly one fenced code block that starts with "
    "```cpp: a single C++17 translation unit that defines the extern \"C\" function with the "
    "exact signature above, using only the standard library and compiler intrinsics. After "
    "the block, list in at most five short bullet points what you changed and why. Do not "
    "use threads, files, I/O, global state that changes between calls, or printing.";

std::string SkillText(const skills::Skill& skill, bool with_references) {
  std::string text = "### Skill: " + skill.name + "\n" + skill.body + "\n";
  if (with_references) {
    for (const skills::SkillFile& ref : skill.references) {
      text += "\n#### " + skill.name + "/" + ref.name + "\n" + ref.text + "\n";
    }
  }
  return text;
}

}  // namespace

int EstimateTokens(const std::string& text) { return static_cast<int>((text.size() + 3) / 4); }

Result<std::string> RenderTemplate(const std::string& text,
                                   const std::map<std::string, std::string>& values,
                                   const std::string& template_name) {
  CANNBOT_RETURN_IF_ERROR(CheckPlaceholders(text, template_name));
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), PlaceholderPattern()), end; it != end;
       ++it) {
    const std::string key = (*it)[1].str();
    auto value = values.find(key);
    if (value == values.end()) {
      return Status::InvalidArgument(template_name + ": no value for placeholder {{" + key + "}}");
    }
    out.append(last, (*it)[0].first);
    out += value->second;
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

std::string RenderedPrompt::Transcript() const {
  return "=== system ===\n" + system + "\n=== user ===\n" + user;
}

Result<PromptLibrary> PromptLibrary::Load(const std::string& directory) {
  PromptLibrary library;
  const std::pair<const char*, std::string*> files[] = {{"system.md", &library.system_},
                                                        {"optimize.md", &library.optimize_},
                                                        {"repair.md", &library.repair_}};
  for (const auto& [file, slot] : files) {
    const std::string path = directory + "/" + file;
    CANNBOT_ASSIGN_OR_RETURN(*slot, ReadFile(path, 1u << 20));
    CANNBOT_RETURN_IF_ERROR(CheckPlaceholders(*slot, path));
  }
  return library;
}

namespace {

// "fp32", or "x, gamma, y: half; ..." when the tensors' dtypes differ from fp32.
std::string DescribeDTypes(const ops::OpSpec& op) {
  std::map<std::string, std::vector<std::string>> by_dtype;
  for (const ops::Param& p : op.params) {
    if (p.IsTensor()) by_dtype[ops::DTypeName(p.dtype)].push_back(p.name);
  }
  if (by_dtype.size() == 1 && by_dtype.count("float") > 0) return "fp32";
  std::string text;
  for (const auto& [dtype, names] : by_dtype) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    text += (text.empty() ? "" : "; ") + list + ": " + dtype;
  }
  return text;
}

}  // namespace

std::string DescribeOp(const ops::OpSpec& op) {
  std::ostringstream out;
  const std::string dtypes = DescribeDTypes(op);
  out << "Op `" << op.name << "`: " << op.summary << "\n\nSignature (the contract):\n\n    extern \"C\" "
      << op.CSignature() << ";\n\n" << op.semantics << "\n\n"
      << "Tensors are contiguous row-major " << dtypes
      << " with 64-byte aligned base pointers; sizes are "
         "arbitrary (>= 1), so handle remainders that are not multiples of a vector width. "
         "Every output element must be written on every call; inputs are read-only; output "
         "must be bit-for-bit deterministic; the kernel runs single-threaded.\n\n";
  if (dtypes != "fp32") {
    out << "`half` is _Float16 (convert through float; native with AVX512-FP16); `bfloat16` is a "
           "struct { uint16_t bits; } converting to and from float. Both are defined before your "
           "code: do not define them.\n\n";
  }
  if (op.reference_kind == ops::ReferenceKind::kBaseline) {
    out << "There is no independent reference: the numbers of the kernel below are the "
           "reference (differential mode), so keep its arithmetic where it matters.\n\n";
  }
  out << "Shapes it is checked on (against the reference, compared in double), plus a random "
         "shape for every run:\n";
  for (const ops::Shape& s : op.shapes) {
    const ops::Tolerance t = op.tolerance(s);
    out << "- " << s.label << ": " << s.Describe() << " (" << t.Describe() << ")"
        << (s.perf ? " <- timed" : "") << "\n";
  }
  return out.str();
}

std::string DescribeDiagnosis(const diagnosis::Diagnosis& diagnosis) {
  std::ostringstream out;
  if (diagnosis.findings.empty()) out << "No bottleneck was identified from the profile.\n";
  for (const diagnosis::Finding& f : diagnosis.findings) {
    out << "- " << f.bottleneck << ": " << f.summary << "\n";
    for (const diagnosis::Evidence& e : f.evidence) {
      char line[256];
      std::snprintf(line, sizeof(line), "  evidence: %s = %.4g %s (threshold %s %.4g; %s)\n",
                    e.metric.c_str(), e.value, e.unit.c_str(), e.comparison.c_str(),
                    e.threshold, e.source.c_str());
      out << line;
    }
    for (const std::string& r : f.remedies) out << "  remedy: " << r << "\n";
  }
  for (const std::string& u : diagnosis.unjudged) out << "- not judged: " << u << "\n";
  return out.str();
}

Result<RenderedPrompt> PromptLibrary::Optimize(const PromptInputs& inputs,
                                               int token_budget) const {
  return Render(optimize_, "optimize.md", inputs, {}, token_budget);
}

Result<RenderedPrompt> PromptLibrary::Repair(const PromptInputs& inputs,
                                             const std::string& failed_code,
                                             const std::string& feedback,
                                             int token_budget) const {
  return Render(repair_, "repair.md", inputs,
                {{"failed_code", failed_code}, {"feedback", feedback}}, token_budget);
}

Result<RenderedPrompt> PromptLibrary::Render(const std::string& user_template,
                                             const std::string& name, const PromptInputs& inputs,
                                             std::map<std::string, std::string> values,
                                             int token_budget) const {
  if (inputs.op == nullptr || inputs.diagnosis == nullptr) {
    return Status::Internal("a prompt needs an op and a diagnosis");
  }
  values["op_name"] = inputs.op->name;
  values["op_contract"] = DescribeOp(*inputs.op) +
                         (inputs.contract_note.empty() ? "" : "\n" + inputs.contract_note);
  values["kernel_source"] = inputs.kernel_source;
  values["diagnosis"] = DescribeDiagnosis(*inputs.diagnosis);
  values["hardware"] = inputs.hardware;
  values["target"] = inputs.target;
  values["output_format"] = inputs.output_format.empty() ? kOutputFormat : inputs.output_format;
  values["skills"] = "";
  RenderedPrompt prompt;
  CANNBOT_ASSIGN_OR_RETURN(prompt.system, RenderTemplate(system_, values, "system.md"));
  CANNBOT_ASSIGN_OR_RETURN(std::string bare, RenderTemplate(user_template, values, name));
  // What is left of the budget goes to skills: bodies by priority, then references.
  int left = token_budget - EstimateTokens(prompt.system) - EstimateTokens(bare);
  std::vector<bool> with_refs(inputs.skills.size(), false);
  std::vector<bool> included(inputs.skills.size(), false);
  for (size_t i = 0; i < inputs.skills.size(); ++i) {
    const int cost = EstimateTokens(SkillText(*inputs.skills[i].skill, false));
    if (cost <= left) {
      included[i] = true;
      left -= cost;
    }
  }
  for (size_t i = 0; i < inputs.skills.size(); ++i) {
    if (!included[i]) continue;
    const skills::Skill& skill = *inputs.skills[i].skill;
    const int extra = EstimateTokens(SkillText(skill, true)) - EstimateTokens(SkillText(skill, false));
    if (extra > 0 && extra <= left) {
      with_refs[i] = true;
      left -= extra;
    }
  }
  std::string skills_text;
  for (size_t i = 0; i < inputs.skills.size(); ++i) {
    const skills::Skill& skill = *inputs.skills[i].skill;
    if (!included[i]) {
      prompt.skills_trimmed.push_back(skill.name);
      continue;
    }
    skills_text += SkillText(skill, with_refs[i]) + "\n";
    prompt.skills_used.push_back(skill.name + (with_refs[i] ? " (+references)" : ""));
  }
  values["skills"] = skills_text.empty() ? "(no skill applies)" : skills_text;
  CANNBOT_ASSIGN_OR_RETURN(prompt.user, RenderTemplate(user_template, values, name));
  prompt.estimated_tokens = EstimateTokens(prompt.system) + EstimateTokens(prompt.user);
  return prompt;
}

}  // namespace cannbot::prompt
