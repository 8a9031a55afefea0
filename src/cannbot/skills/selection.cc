// SkillLibrary::Select and Explain: which skills apply to one request (diagnosis, op, target).
//
// A skill whose `cannbot:` block lists bottlenecks is chosen by that metadata alone. Any other
// skill is chosen by its text, in whatever language it is written: the glossary's concepts
// for the diagnosis's bottlenecks in its name and description (or in its body, when it is also
// about the op's family), or words it shares with the request.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>

#include "cannbot/skills/glossary.h"
#include "cannbot/skills/skill.h"

namespace cannbot::skills {
namespace {

// Works for the skill's string lists and the glossary's string_view lists alike.
template <typename List>
bool Listed(const List& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

template <typename List>
std::string JoinNames(const List& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + std::string(i);
  return out;
}

// Severity as a ranking key: 3 critical .. 1 info.
int SeverityRank(diagnosis::Severity s) {
  switch (s) {
    case diagnosis::Severity::kCritical:
      return 3;
    case diagnosis::Severity::kWarning:
      return 2;
    case diagnosis::Severity::kInfo:
      return 1;
  }
  return 0;
}

std::string FindingLabel(const diagnosis::Finding& f) {
  return f.bottleneck + " (" + diagnosis::SeverityLabel(f.severity) + ")";
}

}  // namespace

bool SkillMetadata::Serves(const std::string& op, const std::string& family) const {
  if (ops.empty() && families.empty()) return true;
  if (Listed(ops, "*") || Listed(ops, op)) return true;
  return !family.empty() && Listed(families, family);
}

namespace {

// The `targets` and `ops` a skill declares bind whichever way it is matched.
bool PassesDeclaredScope(const SkillMetadata& meta, const std::string& op,
                         const std::string& family, const std::string& target,
                         std::string* why_not) {
  if (!meta.targets.empty() && !Listed(meta.targets, target)) {
    *why_not = "declared targets [" + JoinNames(meta.targets) + "] exclude " + target;
    return false;
  }
  if (meta.Serves(op, family)) return true;
  *why_not = "declared ops [" + JoinNames(meta.ops) + "] and families [" +
             JoinNames(meta.families) + "] exclude " + op +
             (family.empty() ? "" : " (" + family + ")");
  return false;
}

// A skill with cannbot bottlenecks: the most severe finding it addresses, if any.
bool MatchByMetadata(const Skill& skill, const diagnosis::Diagnosis& diagnosis,
                     const std::string& op, const std::string& family,
                     const std::string& target, SkillMatch* match) {
  const SkillMetadata& meta = skill.cannbot;
  if (!PassesDeclaredScope(meta, op, family, target, &match->why)) return false;
  for (const diagnosis::Finding& finding : diagnosis.findings) {  // most severe first
    if (Listed(meta.bottlenecks, finding.bottleneck)) {
      match->score = SeverityRank(finding.severity) * 1000 + meta.priority;
      match->why = "addresses " + FindingLabel(finding);
      return true;
    }
  }
  match->why = "addresses none of the findings (it declares " + JoinNames(meta.bottlenecks) + ")";
  return false;
}

// What a skill's text says about one request.
struct TextEvidence {
  const diagnosis::Finding* finding = nullptr;  // the most severe one a concept answers
  std::string term;                             // the term that said so
  bool in_head = false;                         // found in name/description, not only body
  std::string family_term;                      // names the op's family
  std::vector<std::string> shared_words;
  bool names_op = false;
};

std::string ConceptFor(const glossary::Terms& text, const std::string& bottleneck) {
  for (const glossary::Concept& c : glossary::Concepts()) {
    if (!Listed(c.bottlenecks, bottleneck)) continue;
    std::string term = glossary::FirstMention(text, c);
    if (!term.empty()) return term;
  }
  return "";
}

std::string FamilyTerm(const glossary::Terms& text, const std::string& family) {
  if (family.empty()) return "";
  for (const glossary::Concept& c : glossary::Concepts()) {
    if (!Listed(c.families, family)) continue;
    std::string term = glossary::FirstMention(text, c);
    if (!term.empty()) return term;
  }
  return "";
}

glossary::Terms RequestTerms(const diagnosis::Diagnosis& diagnosis, const std::string& op,
                             const std::string& target) {
  std::string context = op + " " + target;
  for (const diagnosis::Finding& f : diagnosis.findings)
    context += " " + f.bottleneck + " " + f.summary;
  return glossary::Tokenize(context);
}

// The description is searched before the name and keywords so that the reason quotes the
// author's own language (向量化 rather than the "vectorise" of an English folder name).
TextEvidence GatherEvidence(const Skill& skill, const glossary::Terms& head,
                            const diagnosis::Diagnosis& diagnosis, const std::string& op,
                            const std::string& target) {
  TextEvidence e;
  const glossary::Terms description = glossary::Tokenize(skill.description);
  const glossary::Terms body = glossary::Tokenize(skill.body);
  for (const diagnosis::Finding& f : diagnosis.findings) {
    e.term = ConceptFor(description, f.bottleneck);
    if (e.term.empty()) e.term = ConceptFor(head, f.bottleneck);
    e.in_head = !e.term.empty();
    if (e.term.empty()) e.term = ConceptFor(body, f.bottleneck);
    if (!e.term.empty()) {
      e.finding = &f;
      break;
    }
  }
  const std::string family = glossary::OpFamily(op);
  e.family_term = FamilyTerm(description, family);
  if (e.family_term.empty()) e.family_term = FamilyTerm(head, family);
  const glossary::Terms request = RequestTerms(diagnosis, op, target);
  e.shared_words = glossary::CommonWords(request, head);
  for (const std::string& bigram : request.bigrams) {
    if (head.bigrams.count(bigram)) e.shared_words.push_back(bigram);
  }
  e.names_op = glossary::Mentions(head, op);
  return e;
}

// A skill for other hardware, or only about another op family, is never offered.
bool OutOfScope(const glossary::Terms& head, const std::string& op, const std::string& target,
                std::string* why_not) {
  std::string hit;
  const std::set<std::string> targets = glossary::TargetsNamed(head, &hit);
  if (!targets.empty() && !targets.count(target)) {
    *why_not = "written for " + JoinNames(targets) + " ('" + hit + "'), not " + target;
    return true;
  }
  hit.clear();
  const std::set<std::string> families = glossary::HeavyFamiliesNamed(head, &hit);
  const std::string family = glossary::OpFamily(op);
  if (!families.empty() && !families.count(family)) {
    *why_not = "about " + JoinNames(families) + " ('" + hit + "'), not " + op;
    return true;
  }
  return false;
}

std::string DescribeEvidence(const TextEvidence& e) {
  std::vector<std::string> parts;
  if (e.finding != nullptr) {
    parts.push_back((e.in_head ? "describes '" : "body mentions '") + e.term + "' for " +
                    FindingLabel(*e.finding));
  }
  if (!e.family_term.empty()) parts.push_back("op family ('" + e.family_term + "')");
  if (e.names_op) parts.push_back("names the op");
  std::vector<std::string> words(
      e.shared_words.begin(), e.shared_words.begin() + std::min<size_t>(4, e.shared_words.size()));
  if (!words.empty()) parts.push_back("keywords match: " + JoinNames(words));
  if (parts.empty()) return "nothing in its text matches the request";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

// A skill without cannbot bottlenecks: chosen by its text. Scores stay below 1000 so every
// metadata match ranks first.
bool MatchByText(const Skill& skill, const diagnosis::Diagnosis& diagnosis, const std::string& op,
                 const std::string& family, const std::string& target, SkillMatch* match) {
  if (!PassesDeclaredScope(skill.cannbot, op, family, target, &match->why)) return false;
  std::string head_text = skill.name + " " + skill.description;
  for (const std::string& k : skill.cannbot.keywords) head_text += " " + k;
  const glossary::Terms head = glossary::Tokenize(head_text);
  if (OutOfScope(head, op, target, &match->why)) return false;
  const TextEvidence e = GatherEvidence(skill, head, diagnosis, op, target);
  const bool chosen = (e.finding != nullptr && (e.in_head || !e.family_term.empty())) ||
                      e.shared_words.size() >= 2 || e.names_op;
  match->why = DescribeEvidence(e);
  if (!chosen) return false;
  const int severity = e.finding != nullptr ? SeverityRank(e.finding->severity) : 0;
  match->score = severity * 100 +
                 (e.finding == nullptr ? 0
                  : e.in_head          ? 40
                                       : 15) +
                 (e.family_term.empty() ? 0 : 30) + (e.names_op ? 20 : 0) +
                 10 * static_cast<int>(std::min<size_t>(4, e.shared_words.size())) +
                 (skill.cannbot.present ? skill.cannbot.priority : 50) / 10;
  return true;
}

bool BetterMatch(const SkillMatch& a, const SkillMatch& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.skill->name < b.skill->name;
}

}  // namespace

std::vector<SkillVerdict> SkillLibrary::Explain(const diagnosis::Diagnosis& diagnosis,
                                                const std::string& op,
                                                const std::string& target,
                                                const std::string& family) const {
  std::vector<SkillVerdict> verdicts;
  for (const Skill& skill : skills_) {
    SkillVerdict v;
    v.match.skill = &skill;
    const bool by_metadata = !skill.cannbot.bottlenecks.empty();
    v.method = by_metadata ? "metadata" : "text";
    v.selected = by_metadata ? MatchByMetadata(skill, diagnosis, op, family, target, &v.match)
                             : MatchByText(skill, diagnosis, op, family, target, &v.match);
    if (!v.selected) v.match.score = 0;
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

std::vector<SkillMatch> SkillLibrary::Select(const diagnosis::Diagnosis& diagnosis,
                                             const std::string& op,
                                             const std::string& target,
                                             const std::string& family) const {
  std::vector<SkillMatch> matches;
  for (const SkillVerdict& v : Explain(diagnosis, op, target, family)) {
    if (v.selected) matches.push_back(v.match);
  }
  std::sort(matches.begin(), matches.end(), BetterMatch);
  return matches;
}

std::string RenderExplanation(const std::vector<SkillVerdict>& verdicts) {
  std::vector<SkillVerdict> order = verdicts;
  std::stable_sort(order.begin(), order.end(), [](const SkillVerdict& a, const SkillVerdict& b) {
    if (a.selected != b.selected) return a.selected;
    return BetterMatch(a.match, b.match);
  });
  std::string out = "score  chosen  by        skill                              why\n";
  for (const SkillVerdict& v : order) {
    char line[160];
    std::snprintf(line, sizeof line, "%5.0f  %-6s  %-8s  %-34s ", v.match.score,
                  v.selected ? "yes" : "no", v.method.c_str(), v.match.skill->name.c_str());
    out += line + v.match.why + "\n";
  }
  return out;
}

}  // namespace cannbot::skills
