// Facts for the rules: a kernel's metrics plus derived quantities. Each derivation needs all
// of its inputs; a missing input leaves the fact out (and the rules reading it unjudged)
// rather than guessing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstdlib>

#include "cannbot/diagnosis/rules.h"
#include "cannbot/profile/metric_names.h"
#include "cannbot/profile/text.h"

namespace cannbot::diagnosis::internal {
namespace {

namespace m = profile::metric;
using profile::KernelProfile;
using profile::text::ContainsNoCase;

const Fact* Get(const Facts& facts, const char* name) {
  auto it = facts.find(name);
  return it == facts.end() ? nullptr : &it->second;
}

// Cube and vector core counts of Ascend 910B parts by SKU; {0, 0} when unknown. The generic
// "Ascend910B" names two SKU families (20/40 or 24/48 cores), so it stays unknown.
std::pair<int, int> AscendCores(const std::string& device) {
  if (ContainsNoCase(device, "910B1") || ContainsNoCase(device, "910B2")) return {24, 48};
  if (ContainsNoCase(device, "910B3") || ContainsNoCase(device, "910B4")) return {20, 40};
  return {0, 0};
}

// "mte2_ratio 62.0%", for derivations.
std::string Show(const char* name, const Fact* fact) {
  return std::string(name) + " " + FormatValue(fact->value, fact->unit);
}

bool OnVectorCores(const KernelProfile& k) {
  return k.core_type == "AI_VECTOR_CORE" || k.core_type == "MIX_AIV";
}

void DeriveCoreCount(const profile::Profile& p, const KernelProfile& k, Facts* facts) {
  if (Get(*facts, m::kCoreCount) != nullptr) return;
  auto [cube, vector] = AscendCores(p.device);
  if (cube == 0) return;
  const bool vector_cores = OnVectorCores(k);
  (*facts)[m::kCoreCount] = {static_cast<double>(vector_cores ? vector : cube), "",
                             std::string(vector_cores ? "vector" : "cube") + " cores of " +
                                 p.device};
}

void DeriveUtilisation(Facts* facts) {
  auto ratio_of = [&](const char* out, const char* part, const char* whole) {
    const Fact* p = Get(*facts, part);
    const Fact* w = Get(*facts, whole);
    if (Get(*facts, out) == nullptr && p != nullptr && w != nullptr && w->value > 0) {
      (*facts)[out] = {p->value / w->value, "ratio", Show(part, p) + " / " + Show(whole, w)};
    }
  };
  ratio_of(m::kComputeUtilization, m::kGflops, m::kPeakGflops);
  ratio_of(m::kMemoryUtilization, m::kMemoryBandwidth, m::kPeakMemoryBandwidth);
  if (Get(*facts, m::kMemoryUtilization) == nullptr) {
    if (const Fact* dram = Get(*facts, m::kDramUtilization)) {
      (*facts)[m::kMemoryUtilization] = {dram->value, dram->unit, "dram_utilization"};
    }
  }
  const Fact* compute = Get(*facts, m::kComputeUtilization);
  const Fact* memory = Get(*facts, m::kMemoryUtilization);
  if (compute != nullptr && memory != nullptr) {
    (*facts)["max_utilization"] = {std::max(compute->value, memory->value), "ratio",
                                   "max(" + Show(m::kComputeUtilization, compute) + ", " +
                                       Show(m::kMemoryUtilization, memory) + ")"};
  }
}

void DerivePipelines(Facts* facts) {
  const Fact* mac = Get(*facts, m::kMacRatio);
  const Fact* vec = Get(*facts, m::kVecRatio);
  const Fact* mte2 = Get(*facts, m::kMte2Ratio);
  const Fact* mte3 = Get(*facts, m::kMte3Ratio);
  const Fact* scalar = Get(*facts, m::kScalarRatio);
  if (mac != nullptr || vec != nullptr) {
    // A unit that never ran counts as 1% busy, so a pure data mover stays finite.
    const double compute = std::max({mac ? mac->value : 0.0, vec ? vec->value : 0.0, 0.01});
    std::string units = "max(";
    if (mac != nullptr) units += Show(m::kMacRatio, mac) + (vec != nullptr ? ", " : "");
    if (vec != nullptr) units += Show(m::kVecRatio, vec);
    units += ")";
    if (mte2 != nullptr) {
      (*facts)["mte2_over_compute"] = {mte2->value / compute, "x",
                                       Show(m::kMte2Ratio, mte2) + " / " + units};
    }
    if (scalar != nullptr) {
      (*facts)["scalar_over_compute"] = {scalar->value / compute, "x",
                                         Show(m::kScalarRatio, scalar) + " / " + units};
    }
  }
  if (vec != nullptr && mte2 != nullptr && mte3 != nullptr) {
    (*facts)["vec_mte2_mte3_sum"] = {vec->value + mte2->value + mte3->value, "ratio",
                                     Show(m::kVecRatio, vec) + " + " +
                                         Show(m::kMte2Ratio, mte2) + " + " +
                                         Show(m::kMte3Ratio, mte3)};
  }
  // "Bound by nothing" needs the compute side and the copy-in side measured.
  if ((mac != nullptr || vec != nullptr) && mte2 != nullptr) {
    double most = 0;
    const char* busiest = "";
    for (const char* name : {m::kMacRatio, m::kVecRatio, m::kScalarRatio, m::kMte1Ratio,
                             m::kMte2Ratio, m::kMte3Ratio, m::kFixpipeRatio}) {
      const Fact* f = Get(*facts, name);
      if (f != nullptr && f->value >= most) most = f->value, busiest = name;
    }
    (*facts)["max_pipeline_ratio"] = {most, "ratio",
                                      std::string("the busiest pipeline is ") + busiest};
  }
}

void DeriveLayoutShare(const profile::Profile& p, Facts* facts) {
  if (Get(*facts, m::kLayoutTransformShare) != nullptr || p.kernels.size() < 2) return;
  double total = 0;
  double transforms = 0;
  for (const KernelProfile& k : p.kernels) {
    total += k.duration_us;
    for (const char* word : {"TransData", "Transpose", "Permute"}) {
      if (ContainsNoCase(k.type, word) || ContainsNoCase(k.name, word)) {
        transforms += k.duration_us;
        break;
      }
    }
  }
  char how[128];
  std::snprintf(how, sizeof(how), "%.1f of %.1f us in TransData/Transpose/Permute ops",
                transforms, total);
  if (total > 0) (*facts)[m::kLayoutTransformShare] = {transforms / total, "ratio", how};
}

int DtypeBytes(std::string dtype) {
  if (dtype.rfind("DT_", 0) == 0) dtype = dtype.substr(3);
  for (char& c : dtype) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (dtype == "FLOAT16" || dtype == "HALF" || dtype == "BF16" || dtype == "BFLOAT16" ||
      dtype == "INT16" || dtype == "UINT16") {
    return 2;
  }
  if (dtype == "FLOAT" || dtype == "FLOAT32" || dtype == "INT32" || dtype == "UINT32") return 4;
  if (dtype == "INT8" || dtype == "UINT8") return 1;
  if (dtype == "DOUBLE" || dtype == "FLOAT64" || dtype == "INT64") return 8;
  return 0;
}

// Bytes along the innermost axis of a matrix op's first input ("4096,1000;..." with FLOAT16
// gives 2000), when the shapes and data types are known.
void DeriveInnerAxis(const KernelProfile& k, Facts* facts) {
  const bool matrix_op = ContainsNoCase(k.type, "MatMul") || ContainsNoCase(k.type, "Gemm") ||
                         ContainsNoCase(k.name, "MatMul") || ContainsNoCase(k.name, "Gemm");
  if (!matrix_op || k.input_shapes.empty() || k.input_dtypes.empty()) return;
  const std::string first = k.input_shapes.substr(0, k.input_shapes.find(';'));
  const std::string inner = first.substr(first.find_last_of(',') + 1);
  const std::string dtype = k.input_dtypes.substr(0, k.input_dtypes.find(';'));
  const int bytes = DtypeBytes(dtype);
  char* end = nullptr;
  const long long extent = std::strtoll(inner.c_str(), &end, 10);
  if (bytes == 0 || end == inner.c_str() || extent <= 0) return;
  (*facts)["inner_axis_bytes"] = {static_cast<double>(extent) * bytes, "bytes",
                                  std::to_string(extent) + " x " + dtype};
}

}  // namespace

Facts GatherFacts(const profile::Profile& profile, const KernelProfile& kernel) {
  Facts facts;
  // Non-finite values (only a hand-built profile can hold them) count as not measured.
  for (const auto& [name, metric] : kernel.metrics) {
    if (std::isfinite(metric.value)) facts[name] = {metric.value, metric.unit, metric.note};
  }
  if (kernel.block_dim && *kernel.block_dim > 0) {
    facts["block_dim"] = {static_cast<double>(*kernel.block_dim), "blocks", ""};
  }
  if (kernel.duration_us > 0) {
    facts["launch_duration_us"] = {kernel.MeanLaunchUs(), "us",
                                   kernel.launches > 1 ? "duration_us / launches" : ""};
  }
  DeriveCoreCount(profile, kernel, &facts);
  DeriveUtilisation(&facts);
  DerivePipelines(&facts);
  DeriveLayoutShare(profile, &facts);
  DeriveInnerAxis(kernel, &facts);
  std::erase_if(facts, [](const auto& entry) { return !std::isfinite(entry.second.value); });
  return facts;
}

std::string FormatValue(double value, const std::string& unit) {
  char text[64];
  if (unit == "ratio") {
    std::snprintf(text, sizeof(text), "%.1f%%", value * 100);
  } else if (unit == "x") {
    std::snprintf(text, sizeof(text), "%.2fx", value);
  } else if (unit.empty() || unit == "count" || unit == "blocks") {
    std::snprintf(text, sizeof(text), "%.4g", value);
  } else {
    std::snprintf(text, sizeof(text), "%.4g %s", value, unit.c_str());
  }
  return text;
}

const char* CmpText(Cmp cmp) {
  switch (cmp) {
    case Cmp::kLess: return "<";
    case Cmp::kLessEqual: return "<=";
    case Cmp::kGreater: return ">";
    case Cmp::kGreaterEqual: return ">=";
    case Cmp::kNotMultipleOf: return "not a multiple of";
  }
  return "?";
}

}  // namespace cannbot::diagnosis::internal
