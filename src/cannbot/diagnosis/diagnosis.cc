#include "cannbot/diagnosis/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <optional>

#include "cannbot/diagnosis/rules.h"
#include "cannbot/util/json_fields.h"

namespace cannbot::diagnosis {
namespace {

using internal::Cmp;
using internal::Condition;
using internal::Fact;
using internal::Facts;
using internal::Rule;

enum class Outcome { kHolds, kFails, kMissing };

struct Check {
  Outcome outcome = Outcome::kMissing;
  Evidence evidence;
  double strength = 0;
};

// How far past the threshold `value` is, as a fraction of the threshold (capped at 1). For
// "not a multiple of", the share of the last round that stays idle.
double Strength(Cmp cmp, double value, double threshold) {
  if (cmp == Cmp::kNotMultipleOf) {
    const double rounds = std::ceil(value / threshold);
    const double idle = (rounds * threshold - value) / (rounds * threshold);
    return rounds > 0 && std::isfinite(idle) ? std::clamp(idle, 0.0, 1.0) : 0;
  }
  const double scale = std::max(std::fabs(threshold), 1e-9);
  const double margin = (cmp == Cmp::kLess || cmp == Cmp::kLessEqual) ? threshold - value
                                                                       : value - threshold;
  const double strength = margin / scale;
  return std::isfinite(strength) ? std::clamp(strength, 0.0, 1.0) : 0.0;
}

Check Evaluate(const Condition& c, const Facts& facts, std::vector<std::string>* missing) {
  Check check;
  auto it = facts.find(c.metric);
  if (it == facts.end()) {
    missing->push_back(c.metric);
    return check;
  }
  double threshold = c.threshold;
  if (c.threshold_metric != nullptr) {
    auto t = facts.find(c.threshold_metric);
    if (t == facts.end()) {
      missing->push_back(c.threshold_metric);
      return check;
    }
    threshold = t->second.value;
  }
  const double v = it->second.value;
  bool holds = false;
  switch (c.cmp) {
    case Cmp::kLess: holds = v < threshold; break;
    case Cmp::kLessEqual: holds = v <= threshold; break;
    case Cmp::kGreater: holds = v > threshold; break;
    case Cmp::kGreaterEqual: holds = v >= threshold; break;
    case Cmp::kNotMultipleOf:
      holds = threshold >= 1 && std::fmod(std::round(v), std::round(threshold)) != 0;
      break;
  }
  check.outcome = holds ? Outcome::kHolds : Outcome::kFails;
  check.evidence = {c.metric,  v,
                    it->second.unit,
                    internal::CmpText(c.cmp),
                    threshold,
                    c.source,
                    c.threshold_metric ? c.threshold_metric : "",
                    it->second.derivation};
  check.strength = holds ? Strength(c.cmp, v, threshold) : 0;
  return check;
}

// "{vec_ratio}" -> "35.0%", "{name.note}" -> the fact's words; unknown names stay as written.
std::string FillTemplate(const std::string& text, const Facts& facts) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      out += text[i];
      continue;
    }
    const std::string name = text.substr(i + 1, close - i - 1);
    constexpr std::string_view kNote = ".note";
    const bool note = name.size() > kNote.size() && name.ends_with(kNote);
    auto it = facts.find(note ? name.substr(0, name.size() - kNote.size()) : name);
    if (it == facts.end()) {
      out += name;
    } else if (note) {
      out += it->second.derivation;
    } else {
      out += internal::FormatValue(it->second.value, it->second.unit);
    }
    i = close;
  }
  return out;
}

struct RuleResult {
  bool judged = false;
  bool fired = false;
  std::vector<Evidence> evidence;
  double strength = 0;
};

// A rule is a conjunction of its `when` and `also` conditions, judged three-valued: one
// condition known to fail decides it even where another's metric is missing (a cube rule on a
// vector kernel is judged, not "missing mte1_ratio"); otherwise a missing metric leaves it
// unjudged, and `missing` names what it lacked.
RuleResult Apply(const Rule& rule, const Facts& facts, std::vector<std::string>* missing) {
  RuleResult result;
  std::vector<Check> checks = {Evaluate(rule.when, facts, missing)};
  for (const Condition& c : rule.also) checks.push_back(Evaluate(c, facts, missing));
  const auto any = [&](Outcome o) {
    return std::any_of(checks.begin(), checks.end(),
                       [o](const Check& c) { return c.outcome == o; });
  };
  const bool fails = any(Outcome::kFails);
  result.judged = fails || !any(Outcome::kMissing);
  if (!result.judged || fails) return result;
  std::vector<std::string> ignored;
  for (const Condition& c : rule.unless) {
    if (Evaluate(c, facts, &ignored).outcome == Outcome::kHolds) return result;
  }
  result.fired = true;
  result.strength = checks[0].strength;
  for (const Check& c : checks) result.evidence.push_back(c.evidence);
  return result;
}

// Adds evidence lines, skipping a second line for the same metric and direction (the
// warning and the info rule on vec_ratio say the same thing).
void AddEvidence(Finding* finding, const std::vector<Evidence>& evidence) {
  for (const Evidence& e : evidence) {
    const bool seen =
        std::any_of(finding->evidence.begin(), finding->evidence.end(), [&](const Evidence& x) {
          return x.metric == e.metric && x.comparison[0] == e.comparison[0];
        });
    if (!seen) finding->evidence.push_back(e);
  }
}

// What the rules could not judge: how many were and were not, and for each unjudged rule the
// metrics it lacked.
struct Tally {
  int judged = 0;
  std::vector<std::vector<std::string>> missing;  // one entry per unjudged rule
};

// Applies every rule of one bottleneck: the finding when any fired. `judged` says whether
// any rule had the metrics it needs.
std::optional<Finding> Judge(const internal::BottleneckInfo& info, const Facts& facts,
                             bool* judged, Tally* tally) {
  Finding finding;
  bool fired = false;
  for (const Rule& rule : internal::Rules()) {
    if (info.id != std::string_view(rule.bottleneck)) continue;
    std::vector<std::string> missing;
    RuleResult r = Apply(rule, facts, &missing);
    *judged = *judged || r.judged;
    if (r.judged) {
      ++tally->judged;
    } else {
      tally->missing.push_back(std::move(missing));
    }
    if (!r.fired) continue;
    // Strength counts only the evidence at the finding's own severity.
    if (!fired || rule.severity > finding.severity) {
      finding.severity = rule.severity;
      finding.summary = FillTemplate(rule.summary, facts);
      finding.strength = r.strength;
    } else if (rule.severity == finding.severity) {
      finding.strength = std::max(finding.strength, r.strength);
    }
    fired = true;
    AddEvidence(&finding, r.evidence);
  }
  if (!fired) return std::nullopt;
  finding.bottleneck = info.id;
  finding.title = info.title;
  finding.remedies.assign(info.remedies.begin(), info.remedies.end());
  return finding;
}

// One line per metric group the profile lacks entirely and that left rules unjudged: "no
// cube/vector pipeline ratios in this profile (mac_ratio, ...): 17 pipeline rules not judged".
std::vector<std::string> MissingGroups(const Facts& facts, const Tally& tally) {
  std::vector<std::string> lines;
  for (const internal::MetricGroup& group : internal::MetricGroups()) {
    const bool present = std::any_of(group.measured.begin(), group.measured.end(),
                                     [&](const char* name) { return facts.count(name) > 0; });
    if (present) continue;
    const int rules = static_cast<int>(
        std::count_if(tally.missing.begin(), tally.missing.end(), [&](const auto& lacked) {
          return std::any_of(lacked.begin(), lacked.end(), [&](const std::string& name) {
            return std::any_of(group.reads.begin(), group.reads.end(),
                               [&](const char* read) { return name == read; });
          });
        }));
    if (rules == 0) continue;
    std::string names;
    for (const char* name : group.measured) names += std::string(names.empty() ? "" : ", ") + name;
    lines.push_back("no " + std::string(group.what) + " in this profile (" + names +
                    "): " + std::to_string(rules) + " " + group.rules + (rules == 1 ? "" : "s") +
                    " not judged");
  }
  return lines;
}

Result<Coverage> CoverageFromJson(const nlohmann::json& json, const std::string& path) {
  Coverage c;
  JsonFields f(json, path);
  f.Read("rules_judged", &c.rules_judged);
  f.Read("rules_not_judged", &c.rules_not_judged);
  f.Read("not_judged", &c.not_judged);
  f.Read("missing", &c.missing);
  f.Read("assumed", &c.assumed);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return c;
}

Result<Evidence> EvidenceFromJson(const nlohmann::json& json, const std::string& path) {
  Evidence e;
  JsonFields f(json, path);
  f.Read("metric", &e.metric);
  f.Read("value", &e.value);
  f.Read("unit", &e.unit);
  f.Read("comparison", &e.comparison);
  f.Read("threshold", &e.threshold);
  f.Read("source", &e.source);
  f.ReadIfPresent("threshold_metric", &e.threshold_metric);
  f.ReadIfPresent("derivation", &e.derivation);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return e;
}

Result<Finding> FindingFromJson(const nlohmann::json& json, const std::string& path) {
  Finding finding;
  JsonFields f(json, path);
  f.Read("bottleneck", &finding.bottleneck);
  f.Read("title", &finding.title);
  std::string severity;
  f.Read("severity", &severity);
  bool known = false;
  for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kCritical}) {
    if (severity != SeverityLabel(s)) continue;
    finding.severity = s;
    known = true;
  }
  if (f.ok() && !known) f.Fail("severity", "expected \"info\", \"warning\" or \"critical\"");
  f.Read("strength", &finding.strength);
  f.Read("summary", &finding.summary);
  f.Array("evidence", &finding.evidence, EvidenceFromJson);
  f.Read("remedies", &finding.remedies);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return finding;
}

}  // namespace

const char* SeverityLabel(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "info";
}

std::string Evidence::Describe() const {
  std::string text = metric + " = " + internal::FormatValue(value, unit);
  if (!derivation.empty()) text += " [" + derivation + "]";
  text += " (" + comparison + " ";
  if (!threshold_metric.empty()) text += threshold_metric + " = ";
  text += internal::FormatValue(threshold, threshold_metric.empty() ? unit : "") + "; " +
          source + ")";
  return text;
}

Diagnosis Diagnose(const profile::Profile& profile, const profile::KernelProfile& kernel) {
  Diagnosis diagnosis;
  diagnosis.kernel = kernel.name;
  const Facts facts = internal::GatherFacts(profile, kernel);
  Tally tally;
  for (const internal::BottleneckInfo& info : internal::Bottlenecks()) {
    bool judged = false;
    std::optional<Finding> finding = Judge(info, facts, &judged, &tally);
    if (finding) {
      diagnosis.findings.push_back(std::move(*finding));
    } else if (!judged) {
      diagnosis.unjudged.push_back(std::string(info.title) + ": " + info.unjudged_hint);
      diagnosis.coverage.not_judged.push_back(info.id);
    }
  }
  diagnosis.coverage.rules_judged = tally.judged;
  diagnosis.coverage.rules_not_judged = static_cast<int>(tally.missing.size());
  diagnosis.coverage.missing = MissingGroups(facts, tally);
  diagnosis.coverage.assumed = internal::Assumptions(facts);
  // Ties keep the table's order: the domain brief's order of how often each is the problem.
  std::stable_sort(diagnosis.findings.begin(), diagnosis.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (a.severity != b.severity) return a.severity > b.severity;
                     if (a.strength != b.strength) return a.strength > b.strength;
                     return a.evidence.size() > b.evidence.size();
                   });
  return diagnosis;
}

bool Diagnosis::Has(const std::string& bottleneck) const {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.bottleneck == bottleneck; });
}

const Finding* Diagnosis::Top() const { return findings.empty() ? nullptr : &findings[0]; }

nlohmann::json Diagnosis::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const Finding& f : findings) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const Evidence& e : f.evidence) {
      nlohmann::json item = {{"metric", e.metric},         {"value", e.value},
                             {"unit", e.unit},             {"comparison", e.comparison},
                             {"threshold", e.threshold},   {"source", e.source},
                             {"text", e.Describe()}};
      if (!e.threshold_metric.empty()) item["threshold_metric"] = e.threshold_metric;
      if (!e.derivation.empty()) item["derivation"] = e.derivation;
      evidence.push_back(std::move(item));
    }
    list.push_back({{"bottleneck", f.bottleneck},
                    {"title", f.title},
                    {"severity", SeverityLabel(f.severity)},
                    {"strength", f.strength},
                    {"summary", f.summary},
                    {"evidence", std::move(evidence)},
                    {"remedies", f.remedies}});
  }
  return {{"kernel", kernel},
          {"picked_because", picked_because},
          {"top", findings.empty() ? nlohmann::json(nullptr) : nlohmann::json(findings[0].bottleneck)},
          {"findings", std::move(list)},
          {"unjudged", unjudged},
          {"coverage",
           {{"rules_judged", coverage.rules_judged},
            {"rules_not_judged", coverage.rules_not_judged},
            {"not_judged", coverage.not_judged},
            {"missing", coverage.missing},
            {"assumed", coverage.assumed}}}};
}

Result<Diagnosis> Diagnosis::FromJson(const nlohmann::json& json, const std::string& path) {
  Diagnosis d;
  JsonFields f(json, path);
  f.Read("kernel", &d.kernel);
  f.Read("picked_because", &d.picked_because);
  f.Array("findings", &d.findings, FindingFromJson);
  f.Read("unjudged", &d.unjudged);
  if (json.is_object() && json.contains("coverage")) {
    f.Object("coverage", &d.coverage, CoverageFromJson);
  }
  CANNBOT_RETURN_IF_ERROR(f.status());
  return d;
}

std::string Diagnosis::RenderText() const {
  std::string out = "Kernel: " + kernel + "\n";
  if (!picked_because.empty()) out += "Picked: " + picked_because + "\n";
  for (const std::string& a : coverage.assumed) out += "Assumed: " + a + "\n";
  out += "\n";
  const int judged = coverage.rules_judged;
  const int not_judged = coverage.rules_not_judged;
  const auto rules = [](int n) { return std::to_string(n) + (n == 1 ? " rule" : " rules"); };
  if (findings.empty() && judged == 0) {
    out += "Nothing could be judged: this profile has none of the metrics the rules need "
           "(below).\n";
  } else if (findings.empty() && not_judged == 0) {
    out += "No bottleneck found: all " + rules(judged) + " were judged and none fired.\n";
  } else if (findings.empty()) {
    out += "No bottleneck found by the " + rules(judged) + " that could be judged; " +
           std::to_string(not_judged) + " could not be (below).\n";
  }
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    std::string severity = SeverityLabel(f.severity);
    for (char& c : severity) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += std::to_string(i + 1) + ". [" + severity + "] " + f.title + " (" + f.bottleneck +
           ")\n   " + f.summary + "\n   Evidence:\n";
    for (const Evidence& e : f.evidence) out += "     - " + e.Describe() + "\n";
    out += "   Remedies:\n";
    for (const std::string& r : f.remedies) out += "     - " + r + "\n";
    out += "\n";
  }
  const bool listed = !unjudged.empty() || !coverage.missing.empty();
  if (!findings.empty() && not_judged > 0) {
    out += std::to_string(judged) + " of the " + rules(judged + not_judged) +
           " could be judged; " + std::to_string(not_judged) + " could not" +
           (listed ? " (below).\n" : ", but every bottleneck was judged by another rule.\n");
  }
  if (listed) {
    out += "Not judged (missing metrics):\n";
    for (const std::string& g : coverage.missing) out += "  - " + g + "\n";
    for (const std::string& u : unjudged) out += "  - " + u + "\n";
  }
  return out;
}

}  // namespace cannbot::diagnosis
