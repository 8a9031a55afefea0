#include "cannbot/optimize/skill_pick.h"

#include <algorithm>
#include <cctype>

namespace cannbot::optimize {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Whether `name` occurs in `text` as a whole name (not inside a longer one).
bool NamesWhole(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !IsNameChar(text[at - 1]);
    const size_t end = at + name.size();
    const bool ends = end == text.size() || !IsNameChar(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// The text after the last "PICK:" up to the end of its line, or the whole answer.
std::string PickLine(const std::string& answer) {
  const size_t at = answer.rfind("PICK:");
  if (at == std::string::npos) return answer;
  const size_t end = answer.find('\n', at);
  return answer.substr(at + 5, end == std::string::npos ? std::string::npos : end - at - 5);
}

std::string Names(const std::vector<skills::SkillMatch>& matches) {
  std::string out;
  for (const skills::SkillMatch& m : matches) out += (out.empty() ? "" : ", ") + m.skill->name;
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<skills::SkillMatch> PickCandidates(const std::vector<skills::SkillVerdict>& verdicts,
                                               size_t max_candidates) {
  std::vector<skills::SkillMatch> candidates;
  for (const skills::SkillVerdict& v : verdicts) {
    if (v.match.score > 0) candidates.push_back(v.match);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const skills::SkillMatch& a, const skills::SkillMatch& b) {
                     return a.score > b.score;
                   });
  if (candidates.size() > max_candidates) candidates.resize(max_candidates);
  return candidates;
}

std::vector<llm::ChatMessage> PickMessages(const std::vector<skills::SkillMatch>& candidates,
                                           const diagnosis::Diagnosis& diagnosis,
                                           const std::string& op, size_t max_picks) {
  std::string findings;
  for (const diagnosis::Finding& f : diagnosis.findings) {
    findings += "- " + f.title + " (" + f.bottleneck + ", " + diagnosis::SeverityLabel(f.severity) +
                "): " + f.summary + "\n";
  }
  std::string list;
  for (const skills::SkillMatch& m : candidates) {
    list += "- " + m.skill->name + ": " + m.skill->description + "\n";
  }
  const std::string system =
      "You choose which expert notes an engineer should read before optimising a kernel. "
      "Answer with one line 'PICK: name, name' naming at most " + std::to_string(max_picks) +
      " of the listed skills, most useful first, then at most two sentences on why.";
  const std::string user = "Op: " + op + "\nDiagnosis:\n" +
                           (findings.empty() ? "- no bottleneck found\n" : findings) +
                           "\nSkills:\n" + list;
  return {{"system", system}, {"user", user}};
}

std::vector<skills::SkillMatch> ParsePick(const std::string& answer,
                                          const std::vector<skills::SkillMatch>& candidates,
                                          size_t max_picks) {
  const std::string line = PickLine(answer);
  std::vector<skills::SkillMatch> chosen;
  for (const skills::SkillMatch& m : candidates) {
    if (chosen.size() < max_picks && NamesWhole(line, m.skill->name)) chosen.push_back(m);
  }
  return chosen;
}

Result<SkillPick> AskModelToPick(llm::ChatClient& chat,
                                 const std::vector<skills::SkillMatch>& candidates,
                                 const diagnosis::Diagnosis& diagnosis, const std::string& op,
                                 size_t max_picks, const std::atomic<bool>* stop) {
  CANNBOT_ASSIGN_OR_RETURN(
      llm::Completion completion,
      chat.Complete(PickMessages(candidates, diagnosis, op, max_picks), 1, stop));
  SkillPick pick;
  pick.chosen = ParsePick(completion.choices.empty() ? "" : completion.choices.front(),
                          candidates, max_picks);
  pick.note = pick.chosen.empty()
                  ? "skills: the model named none of the candidates (" + Names(candidates) +
                        "); the rule-based choice was kept"
                  : "skills picked by the model: " + Names(pick.chosen) + " (candidates: " +
                        Names(candidates) + ")";
  for (skills::SkillMatch& m : pick.chosen) m.why = "picked by the model; " + m.why;
  return pick;
}

}  // namespace cannbot::optimize
