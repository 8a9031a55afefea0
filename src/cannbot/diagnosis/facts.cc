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

// Which kind of Ascend core a task ran on, by the task type msprof, the PyTorch adapter or
// task_time wrote ("AI_CORE", "AI Core", "MIX_AIC", "KERNEL_AIVEC", ...); kNone for AI CPU,
// communication, GPU and CPU kernels, where block dims say nothing about AI cores.
enum class CoreSide { kNone, kCube, kVector };

CoreSide SideOf(const KernelProfile& k) {
  const std::string& t = k.core_type;
  if (OnVectorCores(k) || ContainsNoCase(t, "AIV")) return CoreSide::kVector;
  if (ContainsNoCase(t, "AI_CORE") || ContainsNoCase(t, "AI Core") ||
      ContainsNoCase(t, "AICORE") || ContainsNoCase(t, "MIX_AIC")) {
    return CoreSide::kCube;
  }
  return CoreSide::kNone;
}

// Launches wider than this many blocks run in waves on every part (910A: 32 AI cores; 910B:
// at most 24 cube / 48 vector cores), so they bound nothing about the core count.
int WidestPart(CoreSide side) { return side == CoreSide::kVector ? 48 : 32; }

void DeriveCoreCount(const profile::Profile& p, const KernelProfile& k, Facts* facts) {
  if (Get(*facts, m::kCoreCount) != nullptr) return;
  auto [cube, vector] = AscendCores(p.device);
  if (cube == 0) return;
  const bool vector_cores = OnVectorCores(k);
  (*facts)[m::kCoreCount] = {static_cast<double>(vector_cores ? vector : cube), "",
                             std::string(vector_cores ? "vector" : "cube") + " cores of " +
                                 p.device + " (the profile's device)"};
}

// A lower bound of the core count when the exact one is unknown: the widest launch among the
// profile's kernels on the same kind of core (Ascend kernels launch at most one block per
// core as a rule), or the smallest part of a device family the profile names ("Ascend910B":
// 20 cube / 40 vector cores). No default per file format: msprof writes the same task types
// on a 310P (8 AI cores) as on a 910B (20 or 24), so a guess would flag healthy launches.
void DeriveCoreLowerBound(const profile::Profile& p, const KernelProfile& k, Facts* facts) {
  const Fact* exact = Get(*facts, m::kCoreCount);
  const CoreSide side = SideOf(k);
  std::string kind = side == CoreSide::kVector ? "vector" : "cube";
  double bound = 0;
  std::string how;
  if (exact != nullptr && exact->value >= 1) {
    bound = exact->value;
    how = "cores, the core_count";
  } else if (side != CoreSide::kNone) {
    if (ContainsNoCase(p.device, "910B")) {
      bound = side == CoreSide::kVector ? 40 : 20;
      how = kind + " cores, from the smallest " + p.device + " part (the profile's device)";
    }
    const KernelProfile* widest = nullptr;
    for (const KernelProfile& other : p.kernels) {
      // The kernel's own launch says nothing about the cores it left idle.
      if (&other == &k || other.name == k.name || SideOf(other) != side || !other.block_dim ||
          *other.block_dim > WidestPart(side)) {
        continue;
      }
      if (widest == nullptr || *other.block_dim > *widest->block_dim) widest = &other;
    }
    if (widest != nullptr && *widest->block_dim > bound) {
      bound = static_cast<double>(*widest->block_dim);
      how = kind + " cores, from the largest block dim among this profile's " + kind +
            "-core kernels (" + widest->name + ": " + std::to_string(*widest->block_dim) + ")";
    }
  }
  if (bound < 1) return;
  (*facts)["core_count_at_least"] = {bound, "", how};
  const Fact* blocks = Get(*facts, "block_dim");
  if (blocks == nullptr) return;
  const double idle = std::max(0.0, 1 - blocks->value / bound);
  char text[160];
  std::snprintf(text, sizeof(text), "1 - block_dim %.0f / core_count_at_least %.0f",
                blocks->value, bound);
  (*facts)["idle_core_share"] = {idle, "ratio", text};
}

// Whether the kernel's work runs on the cube unit: by its pipeline ratios when it has them
// (the cube at least as busy as the vector unit), else by its op type and core. 1 or 0, and
// absent when nothing says.
void DeriveCubeKernel(const KernelProfile& k, Facts* facts) {
  const Fact* mac = Get(*facts, m::kMacRatio);
  const Fact* vec = Get(*facts, m::kVecRatio);
  const double cube_busy = mac ? mac->value : 0;
  const double vector_busy = vec ? vec->value : 0;
  if (cube_busy > 0 || vector_busy > 0) {
    const bool cube = cube_busy >= vector_busy;
    std::string how = cube ? "the cube busier than the vector unit: "
                           : "the vector unit busier than the cube: ";
    if (mac != nullptr) how += Show(m::kMacRatio, mac);
    if (mac != nullptr && vec != nullptr) how += cube ? " >= " : " < ";
    if (vec != nullptr) how += Show(m::kVecRatio, vec);
    (*facts)["cube_kernel"] = {cube ? 1.0 : 0.0, "", how};
    return;
  }
  if (SideOf(k) == CoreSide::kVector) {
    (*facts)["cube_kernel"] = {0, "", "runs on vector cores (" + k.core_type + "), no cube unit"};
    return;
  }
  const std::string& op = k.type.empty() ? k.name : k.type;
  bool matrix_op = !ContainsNoCase(op, "Depthwise");
  matrix_op = matrix_op && (ContainsNoCase(op, "MatMul") || ContainsNoCase(op, "Gemm") ||
                            ContainsNoCase(op, "Conv2D") || ContainsNoCase(op, "Conv3D") ||
                            ContainsNoCase(op, "Convolution"));
  if (matrix_op && SideOf(k) == CoreSide::kCube) {
    (*facts)["cube_kernel"] = {1, "", "a matrix op (" + op + ") on " + k.core_type};
  }
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
  // How much busier the copies feeding the cube (MTE1 L1 -> L0, MTE2 global -> L1) are than
  // the cube itself; only for cube kernels, whose vector unit is not the compute side.
  const Fact* cube = Get(*facts, "cube_kernel");
  const Fact* mte1 = Get(*facts, m::kMte1Ratio);
  if (cube != nullptr && cube->value >= 1 && mac != nullptr && (mte1 || mte2)) {
    const Fact* feed = (mte1 != nullptr && (mte2 == nullptr || mte1->value > mte2->value)) ? mte1
                                                                                          : mte2;
    const char* feed_name = feed == mte1 ? m::kMte1Ratio : m::kMte2Ratio;
    (*facts)["cube_feed_over_mac"] = {feed->value / std::max(mac->value, 0.01), "x",
                                      Show(feed_name, feed) + " / " + Show(m::kMacRatio, mac)};
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
  DeriveCoreLowerBound(profile, kernel, &facts);
  DeriveUtilisation(&facts);
  DeriveCubeKernel(kernel, &facts);
  DerivePipelines(&facts);
  DeriveLayoutShare(profile, &facts);
  DeriveInnerAxis(kernel, &facts);
  std::erase_if(facts, [](const auto& entry) { return !std::isfinite(entry.second.value); });
  return facts;
}

std::vector<std::string> Assumptions(const Facts& facts) {
  std::vector<std::string> assumed;
  const Fact* exact = Get(facts, m::kCoreCount);
  const Fact* bound = Get(facts, "core_count_at_least");
  if (exact != nullptr && !exact->derivation.empty()) {
    assumed.push_back("core count: " + FormatValue(exact->value, "") + " " + exact->derivation);
  } else if (exact == nullptr && bound != nullptr) {
    assumed.push_back("core count: at least " + FormatValue(bound->value, "") + " " +
                      bound->derivation +
                      "; the exact count is unknown (name the device, e.g. --device "
                      "Ascend910B3), so only a launch far narrower than that is flagged");
  }
  return assumed;
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
