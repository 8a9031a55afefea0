#include "cannbot/ascendc/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cannbot::ascendc {

namespace {

// GB/s (1e9 bytes per second) as bytes per microsecond.
double BytesPerUs(double gbps) { return gbps * 1e3; }

// One block's counters as real numbers, scaled (1 / blocks gives the average block).
struct Work {
  double bytes = 0, copies = 0, simple_repeats = 0, complex_repeats = 0, instructions = 0,
         scalar_ops = 0, cube_fractals = 0, cube_move_bytes = 0;
};

Work Scaled(const WorkCounters& c, double factor) {
  Work w;
  w.bytes = static_cast<double>(c.gm_to_ub_bytes + c.ub_to_gm_bytes) * factor;
  w.copies = static_cast<double>(c.gm_to_ub_copies + c.ub_to_gm_copies) * factor;
  const uint64_t complex = std::min(c.vector_repeats, c.vector_complex_repeats);
  w.simple_repeats = static_cast<double>(c.vector_repeats - complex) * factor;
  w.complex_repeats = static_cast<double>(complex) * factor;
  w.instructions = static_cast<double>(c.vector_instructions) * factor;
  w.scalar_ops = static_cast<double>(c.scalar_ops) * factor;
  w.cube_fractals = static_cast<double>(c.cube_fractals) * factor;
  w.cube_move_bytes = static_cast<double>(c.cube_move_bytes) * factor;
  return w;
}

struct BlockTime {
  double copy_us = 0, vector_us = 0, cube_us = 0, scalar_us = 0, overlap_saved_us = 0,
         block_us = 0;
};

BlockTime TimeBlock(const Work& w, const LaunchStats& stats, const DeviceProfile& profile,
                    double per_core_gbps) {
  BlockTime t;
  const double cycles_per_us = profile.clock_ghz * 1e3;
  t.copy_us = w.bytes / BytesPerUs(per_core_gbps) + w.copies * profile.copy_setup_us;
  // Repeats are 256-byte units; a device with a narrower unit needs more cycles per repeat.
  const double width_factor = 256.0 / profile.vector_bytes_per_cycle;
  const double vector_cycles =
      (w.simple_repeats + w.complex_repeats * profile.complex_cycles_per_repeat) * width_factor +
      w.instructions * profile.vector_issue_cycles;
  t.vector_us = vector_cycles / cycles_per_us;
  // The cube unit: one fractal per cycle at the profile's rate, and its on-chip moves
  // (LoadData, the L0C read-out) at theirs; the cube and the vector unit are compute alike.
  t.cube_us = (w.cube_fractals / profile.cube_fractals_per_cycle +
               w.cube_move_bytes / profile.cube_move_bytes_per_cycle) /
              cycles_per_us;
  t.scalar_us = w.scalar_ops * profile.scalar_cycles_per_op / cycles_per_us;
  const double compute_us = t.vector_us + t.cube_us;
  const double serial = t.copy_us + compute_us;
  double pipelined = serial;
  if (stats.overlap && stats.tiles >= 2) {
    pipelined = std::max(t.copy_us, compute_us) +
                std::min(t.copy_us, compute_us) / static_cast<double>(stats.tiles);
  }
  t.overlap_saved_us = serial - pipelined;
  t.block_us = pipelined + t.scalar_us;
  return t;
}

}  // namespace

CostEstimate Estimate(const LaunchStats& stats, const DeviceProfile& profile) {
  CostEstimate e;
  // A cube kernel's blocks run on the AI cores (one cube unit each), a vector kernel's on the
  // vector cores.
  const int cores = std::max(1, stats.UsesCube() ? profile.cube_cores : profile.vector_cores);
  const int blocks = static_cast<int>(std::max<uint32_t>(1, stats.block_dim));
  e.active_cores = std::min(blocks, cores);
  e.waves = (blocks + cores - 1) / cores;
  e.per_core_gbps = std::min(profile.core_copy_gbps, profile.hbm_gbps / e.active_cores);

  const BlockTime slowest = TimeBlock(Scaled(stats.max_block, 1.0), stats, profile,
                                      e.per_core_gbps);
  e.copy_us = slowest.copy_us;
  e.vector_us = slowest.vector_us;
  e.cube_us = slowest.cube_us;
  e.scalar_us = slowest.scalar_us;
  e.overlap_saved_us = slowest.overlap_saved_us;
  e.block_us = slowest.block_us;
  e.total_us = profile.launch_overhead_us + e.waves * e.block_us;

  // The average block does the launch's work divided evenly; the slowest one's excess over
  // it is what an uneven split (a tail core) costs.
  const double mean = TimeBlock(Scaled(stats.total, 1.0 / blocks), stats, profile,
                                e.per_core_gbps).block_us;
  e.imbalance = mean > 0 ? e.block_us / mean : 1.0;
  if (e.block_us > 0) {
    e.copy_busy = e.copy_us / e.block_us;
    e.vector_busy = e.vector_us / e.block_us;
    e.cube_busy = e.cube_us / e.block_us;
    e.scalar_busy = e.scalar_us / e.block_us;
  }
  e.ub_high_water_bytes = stats.ub_high_water_bytes;
  e.ub_capacity_bytes = stats.ub_capacity_bytes;
  const long long capacities[4] = {profile.l1_bytes, profile.l0a_bytes, profile.l0b_bytes,
                                   profile.l0c_bytes};
  for (size_t m = 0; m < 4; ++m) {
    e.cube_high_water_bytes[m] = stats.cube_high_water_bytes[m];
    e.cube_capacity_bytes[m] = static_cast<uint64_t>(capacities[m]);
  }

  const double total_bytes =
      static_cast<double>(stats.total.gm_to_ub_bytes + stats.total.ub_to_gm_bytes);
  e.achieved_gbps = e.total_us > 0 ? total_bytes / e.total_us / 1e3 : 0;

  const double launch_share = profile.launch_overhead_us;
  const double waves = static_cast<double>(e.waves);
  double largest = launch_share;
  e.bound = "launch";
  const std::pair<const char*, double> terms[] = {{"copy", e.copy_us * waves},
                                                  {"vector", e.vector_us * waves},
                                                  {"cube", e.cube_us * waves},
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
                        {"cube_us", cube_us},
                        {"scalar_us", scalar_us},
                        {"overlap_saved_us", overlap_saved_us},
                        {"active_cores", active_cores},
                        {"waves", waves},
                        {"per_core_gbps", per_core_gbps},
                        {"achieved_gbps", achieved_gbps},
                        {"imbalance", imbalance},
                        {"busy", {{"copy", copy_busy}, {"vector", vector_busy},
                                  {"cube", cube_busy}, {"scalar", scalar_busy}}},
                        {"ub_high_water_bytes", ub_high_water_bytes},
                        {"ub_capacity_bytes", ub_capacity_bytes},
                        {"cube_high_water_bytes", cube_high_water_bytes},
                        {"cube_capacity_bytes", cube_capacity_bytes},
                        {"bound", bound}};
}

std::string CostEstimate::Describe() const {
  // The cube's terms only where a kernel used it: a vector kernel's line stays as it was.
  char cube[48] = "", cube_busy_text[32] = "";
  if (cube_us > 0) {
    std::snprintf(cube, sizeof(cube), ", cube %.4g", cube_us);
    std::snprintf(cube_busy_text, sizeof(cube_busy_text), ", cube %.0f%%", cube_busy * 100);
  }
  char text[600];
  std::snprintf(text, sizeof(text),
                "%.4g us estimated (%d core%s x %d wave%s; block %.4g us: copy %.4g, vector "
                "%.4g%s, scalar %.4g, overlap saved %.4g; %s-bound; slowest block %.2fx the "
                "mean; pipes busy: MTE %.0f%%, vector %.0f%%%s, scalar %.0f%%; UB high water "
                "%llu of %llu KB)",
                total_us, active_cores, active_cores == 1 ? "" : "s", waves, waves == 1 ? "" : "s",
                block_us, copy_us, vector_us, cube, scalar_us, overlap_saved_us, bound.c_str(),
                imbalance, copy_busy * 100, vector_busy * 100, cube_busy_text, scalar_busy * 100,
                static_cast<unsigned long long>(ub_high_water_bytes / 1024),
                static_cast<unsigned long long>(ub_capacity_bytes / 1024));
  std::string out = text;
  if (cube_high_water_bytes[0] + cube_high_water_bytes[1] + cube_high_water_bytes[2] +
          cube_high_water_bytes[3] > 0) {
    char cube_memories[320];
    const auto kb = [](uint64_t bytes) { return static_cast<unsigned long long>(bytes / 1024); };
    std::snprintf(cube_memories, sizeof(cube_memories),
                  "; L1 high water %llu of %llu KB, L0A %llu of %llu, L0B %llu of %llu, L0C "
                  "%llu of %llu",
                  kb(cube_high_water_bytes[0]), kb(cube_capacity_bytes[0]),
                  kb(cube_high_water_bytes[1]), kb(cube_capacity_bytes[1]),
                  kb(cube_high_water_bytes[2]), kb(cube_capacity_bytes[2]),
                  kb(cube_high_water_bytes[3]), kb(cube_capacity_bytes[3]));
    out.insert(out.size() - 1, cube_memories);  // inside the closing parenthesis
  }
  return out;
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
