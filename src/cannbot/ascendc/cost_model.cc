#include "cannbot/ascendc/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cannbot::ascendc {

namespace {

// GB/s (1e9 bytes per second) as bytes per microsecond.
double BytesPerUs(double gbps) { return gbps * 1e3; }

}  // namespace

CostEstimate Estimate(const LaunchStats& stats, const DeviceProfile& profile) {
  CostEstimate e;
  const int cores = std::max(1, profile.vector_cores);
  const int blocks = static_cast<int>(std::max<uint32_t>(1, stats.block_dim));
  e.active_cores = std::min(blocks, cores);
  e.waves = (blocks + cores - 1) / cores;
  e.per_core_gbps = std::min(profile.core_copy_gbps, profile.hbm_gbps / e.active_cores);

  const WorkCounters& b = stats.max_block;
  const double cycles_per_us = profile.clock_ghz * 1e3;
  const double bytes = static_cast<double>(b.gm_to_ub_bytes + b.ub_to_gm_bytes);
  const double copies = static_cast<double>(b.gm_to_ub_copies + b.ub_to_gm_copies);
  e.copy_us = bytes / BytesPerUs(e.per_core_gbps) + copies * profile.copy_setup_us;

  // Repeats are 256-byte units; a device with a narrower unit needs more cycles per repeat.
  const double width_factor = 256.0 / profile.vector_bytes_per_cycle;
  const double simple =
      static_cast<double>(b.vector_repeats - std::min(b.vector_repeats, b.vector_complex_repeats));
  const double complex = static_cast<double>(b.vector_complex_repeats);
  const double vector_cycles =
      (simple + complex * profile.complex_cycles_per_repeat) * width_factor +
      static_cast<double>(b.vector_instructions) * profile.vector_issue_cycles;
  e.vector_us = vector_cycles / cycles_per_us;
  e.scalar_us = static_cast<double>(b.scalar_ops) * profile.scalar_cycles_per_op / cycles_per_us;

  const double serial = e.copy_us + e.vector_us;
  double pipelined = serial;
  if (stats.overlap && stats.tiles >= 2) {
    pipelined = std::max(e.copy_us, e.vector_us) +
                std::min(e.copy_us, e.vector_us) / static_cast<double>(stats.tiles);
  }
  e.overlap_saved_us = serial - pipelined;
  e.block_us = pipelined + e.scalar_us;
  e.total_us = profile.launch_overhead_us + e.waves * e.block_us;

  const double total_bytes =
      static_cast<double>(stats.total.gm_to_ub_bytes + stats.total.ub_to_gm_bytes);
  e.achieved_gbps = e.total_us > 0 ? total_bytes / e.total_us / 1e3 : 0;

  const double launch_share = profile.launch_overhead_us;
  const double waves = static_cast<double>(e.waves);
  double largest = launch_share;
  e.bound = "launch";
  const std::pair<const char*, double> terms[] = {{"copy", e.copy_us * waves},
                                                  {"vector", e.vector_us * waves},
                                                  {"scalar", e.scalar_us * waves}};
  for (const auto& [name, value] : terms) {
    if (value > largest) {
      largest = value;
      e.bound = name;
    }
  }
  return e;
}

nlohmann::json CostEstimate::ToJson() const {
  return nlohmann::json{{"estimated", true},
                        {"total_us", total_us},
                        {"block_us", block_us},
                        {"copy_us", copy_us},
                        {"vector_us", vector_us},
                        {"scalar_us", scalar_us},
                        {"overlap_saved_us", overlap_saved_us},
                        {"active_cores", active_cores},
                        {"waves", waves},
                        {"per_core_gbps", per_core_gbps},
                        {"achieved_gbps", achieved_gbps},
                        {"bound", bound}};
}

std::string CostEstimate::Describe() const {
  char text[320];
  std::snprintf(text, sizeof(text),
                "%.4g us estimated (%d core%s x %d wave%s; block %.4g us: copy %.4g, vector "
                "%.4g, scalar %.4g, overlap saved %.4g; %s-bound)",
                total_us, active_cores, active_cores == 1 ? "" : "s", waves, waves == 1 ? "" : "s",
                block_us, copy_us, vector_us, scalar_us, overlap_saved_us, bound.c_str());
  return text;
}

ErrorBand SpeedupRange(double speedup) {
  return {speedup * kCalibratedError.low / kCalibratedError.high,
          speedup * kCalibratedError.high / kCalibratedError.low};
}

std::string DescribeRange(const ErrorBand& range) {
  auto ratio = [](double x) {
    char text[32];
    std::snprintf(text, sizeof(text), x >= 100 ? "%.0fx" : x >= 10 ? "%.1fx" : "%.2fx", x);
    return std::string(text);
  };
  return ratio(range.low) + "-" + ratio(range.high);
}

double TrustedFloorUs(const CompulsoryTraffic& traffic, const DeviceProfile& profile) {
  const double bytes = static_cast<double>(traffic.input_bytes + traffic.output_bytes);
  return profile.launch_overhead_us + bytes / (profile.hbm_gbps * 1e3);  // GB/s -> bytes/us
}

}  // namespace cannbot::ascendc
