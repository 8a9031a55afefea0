// The diagnosis rule table's types (the table itself is data, in rules.cc) and the facts the
// rules read: a kernel's canonical metrics plus quantities derived from them and from the
// profile (block dim, core count, mte2 / max(mac, vec), layout-transform share, ...).
//
// A rule fires when its `when` condition and every `also` condition hold and no `unless`
// condition does; the conditions that held are its evidence. A rule whose metrics are absent
// is not judged (the diagnosis lists what it could not judge).
//
// Thread-safety: immutable tables and pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/profile/profile.h"

namespace cannbot::diagnosis::internal {

enum class Cmp { kLess, kLessEqual, kGreater, kGreaterEqual, kNotMultipleOf };

struct Condition {
  const char* metric;
  Cmp cmp;
  double threshold;
  const char* source;                     // where the threshold comes from
  const char* threshold_metric = nullptr;  // compare against this fact instead (core_count)
};

struct Rule {
  const char* bottleneck;
  Severity severity;
  Condition when;
  std::vector<Condition> also;    // must hold too; shown as evidence
  std::vector<Condition> unless;  // any of these holding suppresses the rule
  const char* summary;            // "{metric}" is replaced by the metric's formatted value
};

struct BottleneckInfo {
  const char* id;
  const char* title;
  std::vector<const char*> remedies;
  const char* unjudged_hint;  // what would let cannbot judge it, when nothing could
};

// A family of metrics one tool writes together (msprof's pipeline ratios, ncu's utilisation,
// the cache counters): when a profile has none of `measured`, every rule reading any of
// `reads` is unjudged for that one reason, and the diagnosis says so once for the group.
struct MetricGroup {
  const char* what;                    // "cube/vector pipeline ratios"
  std::vector<const char*> measured;   // the group is missing when none of these is there
  std::vector<const char*> reads;      // measured plus the facts derived from them
  const char* rules;                   // "pipeline rules", for "12 pipeline rules not judged"
};

// In the domain brief's order of how often each bottleneck is the problem (a tie-breaker).
const std::vector<BottleneckInfo>& Bottlenecks();
const std::vector<Rule>& Rules();
const std::vector<MetricGroup>& MetricGroups();

struct Fact {
  double value = 0;
  std::string unit;
  std::string derivation;  // for derived facts: "mte2_ratio 62.0% / max(...) 20.1%"
};
using Facts = std::map<std::string, Fact>;

// The kernel's metrics plus derived quantities (see facts.cc for each derivation).
Facts GatherFacts(const profile::Profile& profile, const profile::KernelProfile& kernel);

// What GatherFacts assumed rather than read, for people: the core count (exact or a lower
// bound) and where it came from. Empty when nothing was assumed.
std::vector<std::string> Assumptions(const Facts& facts);

// "12.3%" for ratios, "85 GB/s", "1.77x", "30".
std::string FormatValue(double value, const std::string& unit);
const char* CmpText(Cmp cmp);

}  // namespace cannbot::diagnosis::internal
