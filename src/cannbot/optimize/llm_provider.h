// LlmProvider: candidates from an OpenAI-compatible chat model.
//
// Round 0 renders the optimize prompt and asks for `samples` answers at once. Later rounds send
// one repair prompt per failed candidate (its code and the validator's feedback), and, when a
// candidate was already accepted, one optimize prompt that starts from the best kernel so far.
// Code is extracted from each answer (code_extract.h); the rendered prompt and the raw answer
// travel with every proposal so the report can show them.
//
// Ownership: borrows the ChatClient and PromptLibrary, which must outlive it.
#pragma once

#include "cannbot/llm/chat_client.h"
#include "cannbot/optimize/provider.h"
#include "cannbot/prompt/prompt.h"

namespace cannbot::optimize {

class LlmProvider : public Provider {
 public:
  LlmProvider(llm::ChatClient* client, const prompt::PromptLibrary* prompts, int token_budget);

  std::string Describe() const override;
  Result<std::vector<Proposal>> Propose(const ProposalRequest& request) override;

 private:
  Result<std::vector<Proposal>> Ask(const prompt::RenderedPrompt& prompt, int samples,
                                    const ProposalRequest& request, const std::string& origin);

  llm::ChatClient* client_;
  const prompt::PromptLibrary* prompts_;
  int token_budget_;
};

}  // namespace cannbot::optimize
