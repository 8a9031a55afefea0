// The model's own choice of skills. With an LLM endpoint and `[skills] model_picks` on, the
// model is shown the best-scored candidates the way agent-skill runtimes show skills (name and
// description only) together with the diagnosis, and names the ones worth reading; their
// bodies then go into the optimisation prompt. The rule-based ranking (skills::SkillLibrary::
// Explain) still decides who the candidates are, so a skill for another target or another op
// family is never offered. What the model picked, among which candidates, goes into the report
// (a note).
//
// Thread-safety: pure functions apart from the one request through `chat`.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/llm/chat_client.h"
#include "cannbot/skills/skill.h"
#include "cannbot/util/status.h"

namespace cannbot::optimize {

struct SkillPick {
  std::vector<skills::SkillMatch> chosen;  // in the candidates' order; empty: none usable
  std::string note;                        // one sentence for the report
};

// The skills the model may choose from: Explain's verdicts with a positive score (the rules
// found a reason to offer them), best first, at most `max_candidates`.
std::vector<skills::SkillMatch> PickCandidates(const std::vector<skills::SkillVerdict>& verdicts,
                                               size_t max_candidates);

// The request the model is sent (system, user), for tests and transcripts.
std::vector<llm::ChatMessage> PickMessages(const std::vector<skills::SkillMatch>& candidates,
                                           const diagnosis::Diagnosis& diagnosis,
                                           const std::string& op, size_t max_picks);

// The candidates `answer` names on its "PICK:" line (anywhere in the answer when it has no
// such line), at most `max_picks`; names not among the candidates are ignored.
std::vector<skills::SkillMatch> ParsePick(const std::string& answer,
                                          const std::vector<skills::SkillMatch>& candidates,
                                          size_t max_picks);

// Asks the model. Errors: the chat client's (the caller keeps the rule-based choice), Aborted
// when `stop` (a cancelled job) is set while it waits.
Result<SkillPick> AskModelToPick(llm::ChatClient& chat,
                                 const std::vector<skills::SkillMatch>& candidates,
                                 const diagnosis::Diagnosis& diagnosis, const std::string& op,
                                 size_t max_picks, const std::atomic<bool>* stop = nullptr);

}  // namespace cannbot::optimize
