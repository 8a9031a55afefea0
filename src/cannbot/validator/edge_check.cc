#include "cannbot/validator/edge_check.h"

#include <cmath>
#include <cstdio>

#include "cannbot/ops/dtype_values.h"
#include "cannbot/util/json_fields.h"
#include "cannbot/validator/inputs.h"
#include "cannbot/validator/runner_protocol.h"

namespace cannbot::validator {
namespace {

namespace proto = runner_protocol;

std::string Times(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2fx", value);
  return text;
}

nlohmann::json TimingToJson(const EdgeTiming& t) {
  return {{"perf_seconds", t.perf_seconds},
          {"edge_seconds", t.edge_seconds},
          {"slowdown", t.slowdown},
          {"perf_fp_exceptions", t.perf_fp_exceptions},
          {"edge_fp_exceptions", t.edge_fp_exceptions},
          {"edge_fp_exceptions_text", DescribeFpExceptions(t.edge_fp_exceptions)},
          {"sets_fp_control", t.sets_fp_control}};
}

Result<EdgeTiming> TimingFromJson(const nlohmann::json& json, const std::string& path) {
  EdgeTiming t;
  JsonFields f(json, path);
  f.Read("perf_seconds", &t.perf_seconds);
  f.Read("edge_seconds", &t.edge_seconds);
  f.Read("slowdown", &t.slowdown);
  uint64_t perf_flags = 0, edge_flags = 0;
  f.Read("perf_fp_exceptions", &perf_flags);
  f.Read("edge_fp_exceptions", &edge_flags);
  f.ReadIfPresent("sets_fp_control", &t.sets_fp_control);
  CANNBOT_RETURN_IF_ERROR(f.status());
  if (perf_flags > 0x3f || edge_flags > 0x3f) {
    return Status::InvalidArgument(path + ": fp exception flags must be MXCSR bits 0-5");
  }
  t.perf_fp_exceptions = static_cast<uint32_t>(perf_flags);
  t.edge_fp_exceptions = static_cast<uint32_t>(edge_flags);
  return t;
}

}  // namespace

std::string DescribeEdgeInputs(const ops::OpSpec& op, const ops::Shape& shape) {
  std::string text;
  for (const ops::Param* p : op.ParamsOfKind(ops::ParamKind::kInput)) {
    const ops::Distribution d = WithEdges(op, shape, p->name);
    if (d.edge_values.empty() || d.edge_fraction <= 0) continue;
    char head[96];
    std::snprintf(head, sizeof(head), "%s%s: %g%% from {", text.empty() ? "" : "; ",
                  p->name.c_str(), d.edge_fraction * 100);
    text += head;
    for (size_t i = 0; i < d.edge_values.size() && i < 6; ++i) {
      char value[32];
      std::snprintf(value, sizeof(value), "%s%g", i == 0 ? "" : ", ", d.edge_values[i]);
      text += value;
    }
    if (d.edge_values.size() > 6) {
      text += ", ... " + std::to_string(d.edge_values.size()) + " values";
    }
    text += "}";
  }
  return text;
}

bool HoldsSubnormals(const std::vector<ops::Tensor>& tensors) {
  for (const ops::Tensor& t : tensors) {
    if (!ops::DTypeIsFloat(t.dtype())) continue;
    const double min_normal = ops::Limits(t.dtype()).min_normal;
    for (int64_t i = 0; i < t.elements(); ++i) {
      const double v = std::fabs(t.At(i));
      if (v > 0 && v < min_normal) return true;
    }
  }
  return false;
}

std::string DescribeFpExceptions(uint32_t flags) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {proto::kFpInvalid, "invalid"},        {proto::kFpDenormalOperand, "denormal operand"},
      {proto::kFpDivideByZero, "divide by zero"}, {proto::kFpOverflow, "overflow"},
      {proto::kFpUnderflow, "underflow"},    {proto::kFpInexact, "inexact"}};
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if ((flags & bit) != 0) text += (text.empty() ? "" : ", ") + std::string(name);
  }
  return text.empty() ? "none" : text;
}

bool MadeSubnormals(uint32_t flags, bool inputs_subnormal) {
  // With subnormal inputs, both flags may come from computing on them, as the op must.
  return !inputs_subnormal && (flags & (proto::kFpUnderflow | proto::kFpDenormalOperand)) != 0;
}

bool SetsFloatingPointControl(const std::string& source) {
  for (const char* marker : {"_mm_setcsr", "ldmxcsr", "_MM_SET_FLUSH_ZERO_MODE",
                             "_MM_SET_DENORMALS_ZERO_MODE", "fesetenv", "__builtin_ia32_ldmxcsr"}) {
    if (source.find(marker) != std::string::npos) return true;
  }
  return false;
}

bool EdgeCheck::MadeSubnormals(const EdgeTiming& t) const {
  return !t.sets_fp_control && validator::MadeSubnormals(t.edge_fp_exceptions, inputs_subnormal);
}

void EdgeCheck::Judge() {
  warning.clear();
  if (!ran) return;
  const bool slow = candidate.slowdown > kTrapSlowdown;
  const bool subnormals = MadeSubnormals(candidate);
  if (!slow && !subnormals) return;
  std::string text = "the candidate ";
  if (slow) {
    text += "is " + Times(candidate.slowdown) + " slower on the op's edge inputs than on the " +
            "perf inputs";
  }
  if (subnormals) {
    text += std::string(slow ? " and " : "") + "produced subnormal numbers on the edge inputs (" +
            DescribeFpExceptions(candidate.edge_fp_exceptions) +
            "): each costs Intel cores a microcode assist" +
            (slow ? std::string() : ", so it runs far slower there than on this machine");
  }
  warning = text + (subnormals ? "; clamp arguments so results stay normal (exp below -87 is 0 "
                                 "in fp32, x * tiny is 0 within any tolerance) or set "
                                 "flush-to-zero inside the kernel and restore it"
                               : "; look for a slow path taken on huge magnitudes, zeros or "
                                 "special values (a library call, a branch out of the vector "
                                 "loop)");
}

std::string EdgeCheck::RenderText() const {
  if (!ran) return inputs.empty() ? "" : "  edge inputs: not checked (" + inputs + ")\n";
  char line[256];
  std::snprintf(line, sizeof(line),
                "  edge inputs (%s): baseline %s its perf-input time, candidate %s\n",
                inputs.c_str(), Times(baseline.slowdown).c_str(),
                Times(candidate.slowdown).c_str());
  std::string text = line;
  auto made = [this](const EdgeTiming& t) {
    return t.sets_fp_control ? std::string("flushed by the kernel")
                             : std::string(MadeSubnormals(t) ? "yes" : "no");
  };
  text += "  subnormal numbers on them: baseline " + made(baseline) + ", candidate " +
          made(candidate) +
          (inputs_subnormal ? " (the inputs hold subnormals themselves)" : "") + "\n";
  if (!warning.empty()) text += "  WARNING: " + warning + "\n";
  return text;
}

nlohmann::json EdgeCheckToJson(const EdgeCheck& check) {
  return {{"ran", check.ran},
          {"inputs", check.inputs},
          {"inputs_subnormal", check.inputs_subnormal},
          {"baseline", TimingToJson(check.baseline)},
          {"candidate", TimingToJson(check.candidate)},
          {"warning", check.warning}};
}

Result<EdgeCheck> EdgeCheckFromJson(const nlohmann::json& json, const std::string& path) {
  EdgeCheck check;
  JsonFields f(json, path);
  f.Read("ran", &check.ran);
  f.Read("inputs", &check.inputs);
  f.Read("inputs_subnormal", &check.inputs_subnormal);
  f.Object("baseline", &check.baseline, TimingFromJson);
  f.Object("candidate", &check.candidate, TimingFromJson);
  f.Read("warning", &check.warning);
  CANNBOT_RETURN_IF_ERROR(f.status());
  return check;
}

}  // namespace cannbot::validator
