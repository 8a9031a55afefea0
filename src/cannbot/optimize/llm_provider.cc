#include "cannbot/optimize/llm_provider.h"

#include "cannbot/llm/code_extract.h"
#include "cannbot/target/registry.h"

namespace cannbot::optimize {

LlmProvider::LlmProvider(llm::ChatClient* client, const prompt::PromptLibrary* prompts,
                         int token_budget)
    : client_(client), prompts_(prompts), token_budget_(token_budget) {}

std::string LlmProvider::Describe() const {
  return "LLM " + client_->config().model + " at " + client_->config().base_url;
}

Result<std::vector<Proposal>> LlmProvider::Ask(const prompt::RenderedPrompt& prompt, int samples,
                                               const ProposalRequest& request,
                                               const std::string& origin) {
  CANNBOT_ASSIGN_OR_RETURN(llm::Completion completion,
                           client_->Complete({{"system", prompt.system}, {"user", prompt.user}},
                                             samples, request.stop));
  std::vector<Proposal> proposals;
  for (size_t i = 0; i < completion.choices.size(); ++i) {
    Proposal p;
    p.origin = origin + (completion.choices.size() > 1 ? " sample " + std::to_string(i + 1) : "");
    p.prompt = prompt.Transcript();
    p.response = completion.choices[i];
    llm::ExtractedCode extracted = llm::ExtractCode(p.response, request.op->name);
    p.code = extracted.code;
    p.explanation = extracted.explanation;
    p.problem = extracted.problem;
    proposals.push_back(std::move(p));
  }
  return proposals;
}

Result<std::vector<Proposal>> LlmProvider::Propose(const ProposalRequest& request) {
  prompt::PromptInputs inputs;
  inputs.op = request.op;
  inputs.kernel_source = request.source;
  inputs.diagnosis = request.diagnosis;
  inputs.skills = request.skills;
  inputs.hardware = request.hardware;
  const target::Target& target = target::OrDefault(request.target);
  inputs.target = std::string(target.name());
  target::PromptParts parts = target.Prompt(*request.op);
  inputs.contract_note = std::move(parts.contract_note);
  inputs.output_format = std::move(parts.output_format);
  const std::string round = "llm round " + std::to_string(request.round);
  if (request.round == 0) {
    CANNBOT_ASSIGN_OR_RETURN(prompt::RenderedPrompt prompt,
                             prompts_->Optimize(inputs, token_budget_));
    return Ask(prompt, request.samples, request, round);
  }
  std::vector<Proposal> proposals;
  int left = request.samples;
  for (size_t i = 0; i < request.failures.size() && left > 0; ++i, --left) {
    const Failure& failure = request.failures[i];
    CANNBOT_ASSIGN_OR_RETURN(
        prompt::RenderedPrompt prompt,
        prompts_->Repair(inputs, failure.code, failure.feedback, token_budget_));
    CANNBOT_ASSIGN_OR_RETURN(auto repaired,
                             Ask(prompt, 1, request, round + " repair " + std::to_string(i + 1)));
    for (Proposal& p : repaired) proposals.push_back(std::move(p));
  }
  if (left > 0 && !request.best_code.empty()) {
    inputs.kernel_source = request.best_code;  // improve on the best accepted kernel
    CANNBOT_ASSIGN_OR_RETURN(prompt::RenderedPrompt prompt,
                             prompts_->Optimize(inputs, token_budget_));
    CANNBOT_ASSIGN_OR_RETURN(auto improved, Ask(prompt, left, request, round + " improve"));
    for (Proposal& p : improved) proposals.push_back(std::move(p));
  }
  return proposals;
}

}  // namespace cannbot::optimize
