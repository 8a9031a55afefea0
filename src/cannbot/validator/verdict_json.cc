// The verdict JSON (a contract: DESIGN.md) and its way back: Verdict and KernelCheck ToJson
// and FromJson. Keys are only ever added here, never renamed or dropped.
#include <cmath>
#include <limits>

#include "cannbot/util/json_fields.h"
#include "cannbot/validator/verdict.h"

namespace cannbot::validator {
namespace {

using Json = nlohmann::json;

// JSON has no infinity: a non-finite error (NaN where a number was due) is written as null,
// and "non_finite" beside it says which value it was, so that FromJson restores it.
void PutFinite(Json* object, const char* key, double v) {
  if (std::isfinite(v)) {
    (*object)[key] = v;
    return;
  }
  (*object)[key] = nullptr;
  const char* text = std::isnan(v) ? (std::signbit(v) ? "-nan" : "nan") : (v > 0 ? "inf" : "-inf");
  (*object)["non_finite"][key] = text;
}

// Reads what PutFinite wrote. A null that "non_finite" does not name is an infinite error
// (what a bare null meant before "non_finite" existed).
void ReadFinite(JsonFields* f, const Json& object, const char* key, double* out) {
  f->Read(key, out);
  if (!f->ok() || !object.at(key).is_null()) return;
  std::string text = "inf";
  if (object.contains("non_finite")) {
    JsonFields marks(object["non_finite"], f->PathOf("non_finite"));
    marks.ReadIfPresent(key, &text);
    if (!f->Absorb(marks.status())) return;
  }
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (text == "inf" || text == "-inf") {
    *out = text == "inf" ? kInf : -kInf;
  } else if (text == "nan" || text == "-nan") {
    *out = text == "nan" ? kNan : -kNan;
  } else {
    f->Fail(key, "non_finite." + std::string(key) + " is not inf, -inf, nan or -nan");
  }
}

// A layer: its name, or "" / null for none.
void ReadLayer(JsonFields* f, const char* key, Layer* out) {
  std::optional<std::string> name;
  f->Read(key, &name);
  if (!f->ok()) return;
  auto layer = ParseLayer(name.value_or(""));
  if (!layer.ok()) {
    f->Fail(key, "expected \"compile\", \"sandbox\", \"numeric\", \"perf\", \"\" or null");
    return;
  }
  *out = *layer;
}

// The shared object's path is left out: it names a private work directory that is gone once
// the validation ends, so it means nothing to a reader of the report.
Json CompileToJson(const CompileResult& c) {
  return {{"ok", c.ok},           {"cached", c.cached}, {"seconds", c.seconds},
          {"command", c.command}, {"log", c.log},       {"reason", c.reason},
          {"timed_out", c.timed_out}};
}

Result<CompileResult> CompileFromJson(const Json& json, const std::string& path) {
  CompileResult c;
  JsonFields f(json, path);
  f.Read("ok", &c.ok);
  f.Read("cached", &c.cached);
  f.Read("timed_out", &c.timed_out);
  f.Read("log", &c.log);
  f.Read("reason", &c.reason);
  f.Read("command", &c.command);
  f.Read("seconds", &c.seconds);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return c;
}

const char* ToleranceKindName(ops::Tolerance::Kind kind) {
  switch (kind) {
    case ops::Tolerance::Kind::kCann: return "cann";
    case ops::Tolerance::Kind::kExact: return "exact";
    case ops::Tolerance::Kind::kAbsRel: break;
  }
  return "absrel";
}

bool ParseToleranceKind(const std::string& name, ops::Tolerance::Kind* kind) {
  for (auto k : {ops::Tolerance::Kind::kAbsRel, ops::Tolerance::Kind::kCann,
                 ops::Tolerance::Kind::kExact}) {
    if (name == ToleranceKindName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

Json NumericCaseToJson(const NumericCase& c) {
  Json one = {{"label", c.label},
              {"shape", c.shape},
              {"ok", c.problem.empty()},
              {"elements", c.comparison.elements},
              {"mismatches", c.comparison.mismatches},
              {"never_written", c.comparison.never_written},
              {"atol", c.tolerance.atol},
              {"rtol", c.tolerance.rtol},
              {"tolerance", c.tolerance.Describe()},
              {"tolerance_kind", ToleranceKindName(c.tolerance.kind)},
              {"threshold", c.tolerance.threshold},
              {"mean_exceeded", c.comparison.mean_exceeded},
              {"mean_limit", c.comparison.mean_limit},
              {"seconds", c.seconds},
              {"problem", c.problem}};
  PutFinite(&one, "max_abs_error", c.comparison.max_abs_error);
  PutFinite(&one, "max_rel_error", c.comparison.max_rel_error);
  PutFinite(&one, "mean_rel_error", c.comparison.mean_rel_error);
  if (c.comparison.first_bad) {
    const ElementMismatch& m = *c.comparison.first_bad;
    Json bad = {{"index", m.index}, {"never_written", m.never_written}};
    PutFinite(&bad, "expected", m.expected);
    PutFinite(&bad, "got", m.got);
    one["first_bad"] = std::move(bad);
  }
  return one;
}

Result<ElementMismatch> MismatchFromJson(const Json& json, const std::string& path) {
  ElementMismatch m;
  JsonFields f(json, path);
  f.Read("index", &m.index);
  f.Read("never_written", &m.never_written);
  ReadFinite(&f, json, "expected", &m.expected);
  ReadFinite(&f, json, "got", &m.got);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return m;
}

Result<NumericCase> NumericCaseFromJson(const Json& json, const std::string& path) {
  NumericCase c;
  JsonFields f(json, path);
  f.Read("label", &c.label);
  f.Read("shape", &c.shape);
  f.Read("problem", &c.problem);
  f.Read("seconds", &c.seconds);
  f.Read("atol", &c.tolerance.atol);
  f.Read("rtol", &c.tolerance.rtol);
  std::string kind = ToleranceKindName(c.tolerance.kind);
  f.ReadIfPresent("tolerance_kind", &kind);  // absent in reports older than op specs
  f.ReadIfPresent("threshold", &c.tolerance.threshold);
  if (f.ok() && !ParseToleranceKind(kind, &c.tolerance.kind)) {
    f.Fail("tolerance_kind", "expected \"absrel\", \"cann\" or \"exact\"");
  }
  Comparison& cmp = c.comparison;
  f.ReadIfPresent("mean_exceeded", &cmp.mean_exceeded);
  f.ReadIfPresent("mean_limit", &cmp.mean_limit);
  f.Read("elements", &cmp.elements);
  f.Read("mismatches", &cmp.mismatches);
  f.Read("never_written", &cmp.never_written);
  ReadFinite(&f, json, "max_abs_error", &cmp.max_abs_error);
  ReadFinite(&f, json, "max_rel_error", &cmp.max_rel_error);
  ReadFinite(&f, json, "mean_rel_error", &cmp.mean_rel_error);
  if (f.ok() && json.contains("first_bad")) f.Object("first_bad", &cmp.first_bad, MismatchFromJson);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return c;
}

Json NumericToJson(const NumericReport& n) {
  Json cases = Json::array();
  for (const NumericCase& c : n.cases) cases.push_back(NumericCaseToJson(c));
  Json out = {{"ok", n.ok}, {"layer", LayerName(n.layer)}, {"reason", n.reason}, {"cases", cases},
              {"sandbox_warnings", n.sandbox_warnings}};
  if (!n.child_output.empty()) out["kernel_output"] = n.child_output;
  if (!n.memory_limit.empty()) out["memory_limit"] = n.memory_limit;
  return out;
}

Result<NumericReport> NumericFromJson(const Json& json, const std::string& path) {
  NumericReport n;
  JsonFields f(json, path);
  f.Read("ok", &n.ok);
  ReadLayer(&f, "layer", &n.layer);
  f.Read("reason", &n.reason);
  f.Array("cases", &n.cases, NumericCaseFromJson);
  f.Read("sandbox_warnings", &n.sandbox_warnings);
  f.ReadIfPresent("kernel_output", &n.child_output);
  f.ReadIfPresent("memory_limit", &n.memory_limit);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return n;
}

Json TimingToJson(const KernelTiming& t) {
  return {{"median_ms", t.median_seconds * 1e3}, {"gbps", t.gbps},
          {"gflops", t.gflops},                  {"roofline_fraction", t.roofline_fraction},
          {"calls_per_batch", t.calls_per_batch}, {"median_seconds", t.median_seconds}};
}

// "median_ms" is derived: "median_seconds" is the exact figure.
Result<KernelTiming> TimingFromJson(const Json& json, const std::string& path) {
  KernelTiming t;
  JsonFields f(json, path);
  f.Read("median_seconds", &t.median_seconds);
  f.Read("gbps", &t.gbps);
  f.Read("gflops", &t.gflops);
  f.Read("roofline_fraction", &t.roofline_fraction);
  f.Read("calls_per_batch", &t.calls_per_batch);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return t;
}

// [low, high]; each may be null (a non-finite bound).
Result<Interval> IntervalFromJson(const Json& json, const std::string& path) {
  auto bound = [](const Json& b) {
    return b.is_null() ? std::numeric_limits<double>::quiet_NaN() : b.get<double>();
  };
  const bool pair = json.is_array() && json.size() == 2 &&
                    (json[0].is_number() || json[0].is_null()) &&
                    (json[1].is_number() || json[1].is_null());
  if (!pair) return Status::InvalidArgument(path + ": expected [low, high]");
  return Interval{bound(json[0]), bound(json[1])};
}

// Timings, "device" and "estimate_detail" are written even when they were not measured
// (rounds == 0, not estimated), so that the report reads back exactly.
Json PerfToJson(const PerfReport& p) {
  Json out = {{"ok", p.ok},
              {"layer", LayerName(p.layer)},
              {"reason", p.reason},
              {"shape", p.shape},
              {"speedup", p.speedup},
              {"ci95", {p.speedup_ci.low, p.speedup_ci.high}},
              {"min_speedup", p.min_speedup},
              {"rounds", p.rounds},
              {"channel_overhead_us", p.channel_overhead_seconds * 1e6},
              {"channel_overhead_seconds", p.channel_overhead_seconds},
              {"baseline", TimingToJson(p.baseline)},
              {"candidate", TimingToJson(p.candidate)},
              {"edges", EdgeCheckToJson(p.edges)},
              {"estimated", p.estimated},
              {"device", p.device},
              {"estimate_detail", p.estimate_detail}};
  if (!p.child_output.empty()) out["kernel_output"] = p.child_output;
  if (p.candidate_profile) {  // a profile of its one kernel, in the profile JSON format
    profile::Profile one;
    one.kernels.push_back(*p.candidate_profile);
    out["candidate_profile"] = one.ToJson();
  }
  return out;
}

Result<PerfReport> PerfFromJson(const Json& json, const std::string& path) {
  PerfReport p;
  JsonFields f(json, path);
  f.Read("ok", &p.ok);
  ReadLayer(&f, "layer", &p.layer);
  f.Read("reason", &p.reason);
  f.Read("shape", &p.shape);
  f.Read("speedup", &p.speedup);
  f.Object("ci95", &p.speedup_ci, IntervalFromJson);
  f.Read("min_speedup", &p.min_speedup);
  f.Read("rounds", &p.rounds);
  f.Read("channel_overhead_seconds", &p.channel_overhead_seconds);
  f.Object("baseline", &p.baseline, TimingFromJson);
  f.Object("candidate", &p.candidate, TimingFromJson);
  if (f.ok() && json.contains("edges")) f.Object("edges", &p.edges, EdgeCheckFromJson);
  f.Read("estimated", &p.estimated);
  f.Read("device", &p.device);
  f.Read("estimate_detail", &p.estimate_detail);
  f.ReadIfPresent("kernel_output", &p.child_output);
  CANNBOT_RETURN_IF_ERROR(f.status());
  if (auto it = json.find("candidate_profile"); it != json.end()) {
    Result<profile::Profile> one = profile::Profile::FromJson(*it);
    if (!one.ok()) return one.status().WithContext(path + ".candidate_profile");
    if (one->kernels.size() != 1) {
      return Status::InvalidArgument(path + ".candidate_profile: expected one kernel");
    }
    p.candidate_profile = one->kernels.front();
  }
  return p;
}

Result<MachineModel> MachineFromJson(const Json& json, const std::string& path) {
  Result<MachineModel> machine = MachineModel::FromJson(json);
  if (!machine.ok()) return machine.status().WithContext(path);
  return machine;
}

}  // namespace

Json Verdict::ToJson() const {
  return {
      {"verdict", accepted ? "accepted" : "rejected"},
      {"layer", layer == Layer::kNone ? Json(nullptr) : Json(LayerName(layer))},
      {"reason", reason},
      {"op", op},
      {"target", target},
      {"seed", seed},
      {"candidate", candidate_name},
      {"baseline", baseline_name},
      {"reference", reference},
      {"compile", CompileToJson(compile)},
      {"numeric", numeric ? NumericToJson(*numeric) : Json(nullptr)},
      {"perf", perf ? PerfToJson(*perf) : Json(nullptr)},
      {"machine", machine ? machine->ToJson() : Json(nullptr)},
      {"seconds", seconds},
  };
}

Result<Verdict> Verdict::FromJson(const Json& json, const std::string& path) {
  Verdict v;
  JsonFields f(json, path);
  std::string verdict;
  f.Read("verdict", &verdict);
  if (f.ok() && verdict != "accepted" && verdict != "rejected") {
    f.Fail("verdict", "expected \"accepted\" or \"rejected\"");
  }
  v.accepted = verdict == "accepted";
  ReadLayer(&f, "layer", &v.layer);
  f.Read("reason", &v.reason);
  f.Read("op", &v.op);
  f.Read("target", &v.target);
  f.Read("seed", &v.seed);
  f.Read("candidate", &v.candidate_name);
  f.Read("baseline", &v.baseline_name);
  f.ReadIfPresent("reference", &v.reference);  // absent in reports older than op specs
  f.Object("compile", &v.compile, CompileFromJson);
  f.Object("numeric", &v.numeric, NumericFromJson);
  f.Object("perf", &v.perf, PerfFromJson);
  f.Object("machine", &v.machine, MachineFromJson);
  f.Read("seconds", &v.seconds);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return v;
}

Json KernelCheck::ToJson() const {
  return {{"ok", ok},
          {"layer", LayerName(layer)},
          {"reason", reason},
          {"compile", CompileToJson(compile)},
          {"numeric", numeric ? NumericToJson(*numeric) : Json(nullptr)}};
}

Result<KernelCheck> KernelCheck::FromJson(const Json& json, const std::string& path) {
  KernelCheck check;
  JsonFields f(json, path);
  f.Read("ok", &check.ok);
  ReadLayer(&f, "layer", &check.layer);
  f.Read("reason", &check.reason);
  f.Object("compile", &check.compile, CompileFromJson);
  f.Object("numeric", &check.numeric, NumericFromJson);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return check;
}

}  // namespace cannbot::validator
