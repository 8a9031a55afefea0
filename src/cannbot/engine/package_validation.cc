#include "cannbot/engine/package_validation.h"

#include <cctype>
#include <sstream>

#include "cannbot/ascendc/launch_dtype.h"
#include "cannbot/target/ascendc_package.h"
#include "cannbot/validator/ascendc_package.h"
#include "cannbot/validator/ascendc_sample.h"

namespace cannbot::engine {
namespace {

struct Described {
  ascendc::Package package;
  ascendc::OpDefinition definition;
};

Result<Described> Describe(const validator::Validator& validator, const ascendc::Package& package,
                           const ops::OpSpec& op) {
  Described d;
  d.package = package;
  CANNBOT_ASSIGN_OR_RETURN(d.definition, validator::DescribePackage(validator.compiler(), d.package));
  const std::string problem = ascendc::CheckAgainstOp(d.package, d.definition, op);
  if (!problem.empty()) return Status::InvalidArgument(d.package.Describe() + ": " + problem);
  return d;
}

validator::KernelSource Source(const Described& d, const ascendc::DtypeCombo& combo,
                               const ops::OpSpec& op) {
  ascendc::PackageBuild build = ascendc::MakePackageBuild(d.package, d.definition, combo, op.name);
  return {d.package.dir + "/" + d.package.kernel_file, std::move(build.source),
          std::move(build.files)};
}

// The baseline's combination with the same dtypes, position by position.
std::optional<ascendc::DtypeCombo> Matching(const ascendc::OpDefinition& def,
                                            const ascendc::DtypeCombo& want) {
  for (const ascendc::DtypeCombo& c : ascendc::Combinations(def)) {
    bool same = c.dtypes.size() == want.dtypes.size();
    for (size_t i = 0; same && i < c.dtypes.size(); ++i) {
      same = c.dtypes[i].second == want.dtypes[i].second;
    }
    if (same) return c;
  }
  return std::nullopt;
}

// The combination's dtypes, one per tensor, inputs then outputs (the op's order).
std::vector<std::string> Dtypes(const ascendc::DtypeCombo& combo) {
  std::vector<std::string> dtypes;
  for (const auto& [tensor, dtype] : combo.dtypes) dtypes.push_back(dtype);
  return dtypes;
}

// Why `combo` is not run for `op`, "" when it is: a dtype the launch cannot hold, or a tensor
// the op's spec declares half, bfloat16, int8 or uint8 (a typed spec says what the op is; an
// fp32 spec stands for every dtype the package has) launched as something else.
std::string WhyNotLaunchable(const ascendc::DtypeCombo& combo, const ops::OpSpec& op) {
  const std::string dtype = ascendc::FirstUnlaunchable(Dtypes(combo));
  if (!dtype.empty()) {
    return dtype + " tensors are not emulated yet (floating point, integer and bool tensors are)";
  }
  const std::vector<const ops::Param*> tensors = op.Tensors();
  for (size_t t = 0; t < tensors.size() && t < combo.dtypes.size(); ++t) {
    const ops::DType declared = tensors[t]->dtype;
    const char* want = declared == ops::DType::kF16    ? "float16"
                       : declared == ops::DType::kBF16 ? "bfloat16"
                       : declared == ops::DType::kI8   ? "int8"
                       : declared == ops::DType::kU8   ? "uint8"
                                                       : nullptr;
    if (want != nullptr && combo.dtypes[t].second != want) {
      return "op " + op.name + "'s spec declares " + tensors[t]->name + " as " +
             ops::DTypeName(declared) + "; this combination launches " +
             combo.dtypes[t].first + " as " + combo.dtypes[t].second;
    }
  }
  return "";
}

// An attribute's name as the launch matches it to the op's sizes and scalars: lower case,
// without underscores, epsilon as eps (targets/ascendc/cannbot_package_launch.h, Folded).
std::string AttrKey(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out == "epsilon" ? "eps" : out;
}

// A note per OpDef attribute none of the op's sizes and scalars fills.
std::vector<std::string> UnfilledAttributes(const ascendc::OpDefinition& def,
                                            const ops::OpSpec& op) {
  std::vector<std::string> notes;
  for (const std::string& attr : def.attrs) {
    bool filled = false;
    for (const ops::Param& p : op.params) {
      filled = filled || (!p.IsTensor() && AttrKey(p.name) == AttrKey(attr));
    }
    if (!filled) {
      notes.push_back("attribute " + attr + " of the OpDef: op " + op.name +
                      " has no size or scalar of that name, so every launch used the "
                      "attribute's OpDef default (name a scalar " + attr +
                      " in your own op spec, --ops-dir, to set it)");
    }
  }
  return notes;
}

}  // namespace

bool PackageRun::ok() const {
  if (!skipped.empty()) return false;
  if (verdict) return verdict->accepted;
  return check && check->ok;
}

bool PackageReport::ok() const {
  bool ran = false;
  for (const PackageRun& r : runs) {
    if (!r.skipped.empty()) continue;
    if (!r.ok()) return false;
    ran = true;
  }
  return ran;
}

nlohmann::json PackageReport::ToJson() const {
  nlohmann::json j = {{"op", op},
                      {"ok", ok()},
                      {"package", candidate},
                      {"baseline", baseline.empty() ? nlohmann::json() : nlohmann::json(baseline)},
                      {"op_type", definition.type},
                      {"kind", sample ? "sample" : "package"}};
  nlohmann::json list = nlohmann::json::array();
  for (const PackageRun& r : runs) {
    nlohmann::json run = {{"dtypes", r.combo.Describe()}, {"ok", r.ok()}};
    if (!r.skipped.empty()) {  // neither passed nor failed
      run["ok"] = nullptr;
      run["skipped"] = r.skipped;
    }
    if (r.verdict) run["verdict"] = r.verdict->ToJson();
    if (r.check) run["check"] = r.check->ToJson();
    list.push_back(std::move(run));
  }
  j["combinations"] = std::move(list);
  j["notes"] = notes;
  return j;
}

std::string PackageReport::RenderText() const {
  std::ostringstream out;
  out << "cannbot validate: " << candidate << "\n  op " << op;
  if (sample) {
    out << " (kernel " << definition.type << ", launched as its host program launches it)\n";
  } else {
    out << " (OpDef " << definition.type << ", " << runs.size() << " dtype combination"
        << (runs.size() == 1 ? "" : "s") << ")\n";
  }
  if (!baseline.empty()) out << "  baseline " << baseline << "\n";
  for (const std::string& note : notes) out << "  note: " << note << "\n";
  for (const PackageRun& r : runs) {
    out << "\n== " << r.combo.Describe() << ": ";
    if (!r.skipped.empty()) {
      out << "skipped: " << r.skipped << "\n";
    } else if (r.verdict) {
      out << (r.verdict->accepted ? "accepted" : "REJECTED") << "\n" << r.verdict->RenderText();
    } else if (r.check) {
      out << (r.check->ok ? "correct" : "FAILED") << "\n";
      out << "  compile   " << (r.check->compile.ok ? "pass" : "FAIL ") << " "
          << (r.check->compile.ok ? "" : r.check->compile.reason) << "\n";
      if (r.check->numeric) {
        out << "  numeric   " << (r.check->numeric->ok ? "pass" : "FAIL") << " "
            << (r.check->numeric->ok
                    ? std::to_string(r.check->numeric->cases.size()) + " cases"
                    : r.check->numeric->reason)
            << "\n";
      }
    }
  }
  size_t skipped = 0;
  for (const PackageRun& r : runs) skipped += !r.skipped.empty();
  out << "\n" << (ok() ? "every combination that ran passed" : "NOT every combination passed");
  if (skipped > 0) out << " (" << skipped << " skipped, each with its reason above)";
  out
      << (!baseline.empty() ? ""
          : sample ? " (compile and numeric layers; give --baseline DIR for the estimated speed)"
                   : " (compile and numeric layers; give --baseline-package for the estimated "
                     "speed)")
      << "\n";
  return out.str();
}

Result<PackageReport> ValidatePackage(validator::Validator& validator,
                                      const ops::Registry& registry,
                                      const PackageRequest& request) {
  const ops::OpSpec* op = registry.Find(request.op);
  if (op == nullptr) return Status::NotFound("unknown op '" + request.op + "'");
  CANNBOT_ASSIGN_OR_RETURN(Described candidate, Describe(validator, request.candidate, *op));
  std::optional<Described> baseline;
  if (request.baseline) {
    CANNBOT_ASSIGN_OR_RETURN(baseline, Describe(validator, *request.baseline, *op));
  }
  PackageReport report;
  report.op = op->name;
  report.candidate = candidate.package.Describe();
  if (baseline) report.baseline = baseline->package.Describe();
  report.definition = candidate.definition;
  report.notes = UnfilledAttributes(candidate.definition, *op);
  for (const ascendc::DtypeCombo& combo : ascendc::Combinations(candidate.definition)) {
    PackageRun run;
    run.combo = combo;
    run.skipped = WhyNotLaunchable(combo, *op);
    std::optional<ascendc::DtypeCombo> base_combo;
    if (run.skipped.empty() && baseline) {
      base_combo = Matching(baseline->definition, combo);
      if (!base_combo) run.skipped = "the baseline's OpDef has no combination " + combo.Describe();
    }
    if (!run.skipped.empty()) {
      report.runs.push_back(std::move(run));
      continue;
    }
    const target::AscendcPackageTarget target(Dtypes(combo));
    if (baseline) {
      validator::ValidationRequest v;
      v.op = op->name;
      v.candidate = Source(candidate, combo, *op);
      v.baseline = Source(*baseline, *base_combo, *op);
      v.seed = request.seed;
      v.min_speedup = request.min_speedup;
      v.target = &target;
      v.spec = op;  // the registry's, which need not be the validator's
      CANNBOT_ASSIGN_OR_RETURN(run.verdict, validator.Validate(v));
    } else {
      CANNBOT_ASSIGN_OR_RETURN(run.check, validator.CheckKernel(op->name, Source(candidate, combo, *op),
                                                                request.seed, &target, op));
    }
    report.runs.push_back(std::move(run));
  }
  return report;
}

namespace {

struct Discovered {
  ascendc::SampleLaunch launch;
  std::vector<std::string> dtypes;
  ops::Shape shape;
};

Result<Discovered> Discover(const validator::Validator& validator, const ascendc::Sample& sample,
                            const ops::OpSpec& op) {
  Discovered d;
  CANNBOT_ASSIGN_OR_RETURN(
      d.launch,
      validator::DiscoverSample(validator.compiler(), validator.config().device, sample, op));
  size_t tensors = 0;
  for (const ops::Param& p : op.params) tensors += p.IsTensor();
  d.dtypes = d.launch.TensorDtypes(tensors);
  auto shape = ascendc::SampleShape(op, d.launch.TensorElements(tensors));
  if (!shape.ok()) return shape.status().WithContext(sample.Describe());
  d.shape = std::move(shape).value();
  return d;
}

validator::KernelSource SampleSource(const ascendc::Sample& sample, const Discovered& d) {
  return {sample.dir + "/" + sample.kernel_file, ascendc::SampleReplayKernel(sample, d.launch),
          ascendc::SampleReplayFiles(sample, d.launch)};
}

}  // namespace

Result<PackageReport> ValidateSample(validator::Validator& validator,
                                     const ops::Registry& registry, const SampleRequest& request) {
  const ops::OpSpec* op = registry.Find(request.op);
  if (op == nullptr) return Status::NotFound("unknown op '" + request.op + "'");
  CANNBOT_RETURN_IF_ERROR(validator::CheckEmulatedOp(*op, "samples", false, true));
  CANNBOT_ASSIGN_OR_RETURN(Discovered candidate, Discover(validator, request.candidate, *op));
  std::optional<Discovered> baseline;
  if (request.baseline) {
    CANNBOT_ASSIGN_OR_RETURN(baseline, Discover(validator, *request.baseline, *op));
    if (baseline->dtypes != candidate.dtypes ||
        baseline->shape.Describe() != candidate.shape.Describe()) {
      return Status::InvalidArgument(
          "the baseline " + request.baseline->Describe() + " launches " +
          baseline->shape.Describe() + " but the candidate " + candidate.shape.Describe() +
          " (or other dtypes): a comparison needs the same launch of the op");
    }
  }
  PackageReport report;
  report.op = op->name;
  report.candidate = request.candidate.Describe();
  if (request.baseline) report.baseline = request.baseline->Describe();
  report.definition.type = candidate.launch.kernel;
  report.sample = true;
  PackageRun run;
  size_t t = 0;
  for (const auto kind : {ops::ParamKind::kInput, ops::ParamKind::kOutput}) {
    for (const ops::Param* p : op->ParamsOfKind(kind)) {
      run.combo.dtypes.push_back({p->name, candidate.dtypes[t++]});
    }
  }
  report.notes.push_back("the sample's launch: " + std::to_string(candidate.launch.block_dim) +
                         " blocks, shape " + candidate.shape.Describe() +
                         " (the only shape a sample's host program launches)");
  const target::AscendcPackageTarget target(candidate.dtypes, candidate.shape);
  if (baseline) {
    validator::ValidationRequest v;
    v.op = op->name;
    v.candidate = SampleSource(request.candidate, candidate);
    v.baseline = SampleSource(*request.baseline, *baseline);
    v.seed = request.seed;
    v.min_speedup = request.min_speedup;
    v.target = &target;
    v.spec = op;
    CANNBOT_ASSIGN_OR_RETURN(run.verdict, validator.Validate(v));
  } else {
    CANNBOT_ASSIGN_OR_RETURN(
        run.check, validator.CheckKernel(op->name, SampleSource(request.candidate, candidate),
                                         request.seed, &target, op));
  }
  report.runs.push_back(std::move(run));
  return report;
}

}  // namespace cannbot::engine
