// Diagnosis: what limits a kernel, with the evidence, from a canonical Profile.
//
// A rule table (diagnosis/rules.cc, data not scattered ifs) maps metrics to bottlenecks; each
// finding carries its severity, the evidence (metric, value, threshold and where the threshold
// comes from) and the usual remedies. Missing metrics never fail: the diagnosis lists what it
// could not judge, how many rules that was, which groups of metrics the profile lacks, and
// what it assumed (a core count inferred from the profile). Skills (issue: the LLM loop) are
// selected by the bottleneck ids below.
//
// Thread-safety: pure functions over values.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/profile/profile.h"
#include "cannbot/util/status.h"

namespace cannbot::diagnosis {

// Stable ids: skills, prompts, reports and tests refer to these.
inline constexpr const char* kMemoryBound = "memory_bound";
inline constexpr const char* kCacheMisses = "cache_misses";          // also bank conflicts
inline constexpr const char* kLowVectorization = "low_vectorization";
inline constexpr const char* kControlFlow = "control_flow";          // redundant branches
inline constexpr const char* kLayoutMismatch = "layout_mismatch";
inline constexpr const char* kLatencyBound = "latency_bound";        // bound by nothing
inline constexpr const char* kCoreImbalance = "core_imbalance";      // last wave idle
inline constexpr const char* kSerializedPipelines = "serialized_pipelines";  // no overlap
inline constexpr const char* kComputeBound = "compute_bound";
inline constexpr const char* kCubeStarved = "cube_starved";  // cube waits on MTE1/MTE2 feeding
inline constexpr const char* kSubnormalNumbers = "subnormal_numbers";  // microcode assists

enum class Severity { kInfo, kWarning, kCritical };

struct Evidence {
  std::string metric;     // canonical metric name
  double value = 0;
  std::string unit;
  std::string comparison;  // "<", "<=", ">", ">="
  double threshold = 0;
  std::string source;     // where the threshold comes from ("vendor advisor", "domain brief")
  std::string threshold_metric;  // set when the threshold is another metric ("core_count")
  std::string derivation;  // how a derived metric was computed, "" for measured ones

  // "compute_utilization = 12.3% (< 30.0%; domain brief)"
  std::string Describe() const;
};

struct Finding {
  std::string bottleneck;  // one of the ids above
  std::string title;       // for people: "memory-bandwidth bound"
  Severity severity = Severity::kWarning;
  double strength = 0;     // how far past its threshold the strongest evidence is (0..1)
  std::string summary;     // one sentence for people
  std::vector<Evidence> evidence;
  std::vector<std::string> remedies;
};

// How much of the rule table the profile let the diagnosis judge. A rule is judged when every
// metric it reads is there, or when one that is there already rules it out (a cube rule on a
// vector kernel); it is not judged when a metric it needs is missing.
struct Coverage {
  int rules_judged = 0;
  int rules_not_judged = 0;
  std::vector<std::string> not_judged;  // bottleneck ids none of whose rules could be judged
  // Metric groups the profile lacks entirely, with what that left unjudged: "no cube/vector
  // pipeline ratios in this profile (mac_ratio, ...): 14 pipeline rules not judged".
  std::vector<std::string> missing;
  // What the diagnosis assumed and where it came from: "core count: at least 20 cube cores,
  // from the largest block dim among this profile's cube-core kernels (MatMul_1: 20); ...".
  std::vector<std::string> assumed;

  bool operator==(const Coverage&) const = default;
};

struct Diagnosis {
  std::string kernel;      // which kernel of the profile
  std::string picked_because;
  std::vector<Finding> findings;      // most severe first, then strongest evidence
  std::vector<std::string> unjudged;  // "cache misses: no l2_hit_rate in this profile"
  Coverage coverage;

  bool Has(const std::string& bottleneck) const;
  const Finding* Top() const;
  nlohmann::json ToJson() const;
  // Reads ToJson's document back into the same value ("top" and the evidence's "text" are
  // derived and not read; "coverage" may be absent, as in documents written before it).
  // Errors name the field ("diagnosis.findings[0].strength: expected a number"); `path`
  // names the document.
  static Result<Diagnosis> FromJson(const nlohmann::json& json,
                                    const std::string& path = "diagnosis");
  std::string RenderText() const;
};

const char* SeverityLabel(Severity severity);  // "info", "warning", "critical"

// Diagnoses `kernel`, one of `profile`'s kernels (profile-wide facts such as the device's
// core count or the share of layout transforms come from `profile`).
Diagnosis Diagnose(const profile::Profile& profile, const profile::KernelProfile& kernel);

}  // namespace cannbot::diagnosis
