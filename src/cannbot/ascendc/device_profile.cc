#include "cannbot/ascendc/device_profile.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace cannbot::ascendc {

DeviceProfile Ascend910BProfile() { return DeviceProfile(); }

namespace {

// The numeric fields by TOML key, so parsing and validation share one table.
std::map<std::string, double*> NumericFields(DeviceProfile* p) {
  return {
      {"clock_ghz", &p->clock_ghz},
      {"vector_bytes_per_cycle", &p->vector_bytes_per_cycle},
      {"complex_cycles_per_repeat", &p->complex_cycles_per_repeat},
      {"cube_fractals_per_cycle", &p->cube_fractals_per_cycle},
      {"cube_move_bytes_per_cycle", &p->cube_move_bytes_per_cycle},
      {"vector_issue_cycles", &p->vector_issue_cycles},
      {"scalar_cycles_per_op", &p->scalar_cycles_per_op},
      {"hbm_gbps", &p->hbm_gbps},
      {"core_copy_gbps", &p->core_copy_gbps},
      {"copy_setup_us", &p->copy_setup_us},
      {"launch_overhead_us", &p->launch_overhead_us},
  };
}

std::map<std::string, long long*> IntegerFields(DeviceProfile* p) {
  return {{"ub_bytes", &p->ub_bytes},   {"l1_bytes", &p->l1_bytes},   {"l0a_bytes", &p->l0a_bytes},
          {"l0b_bytes", &p->l0b_bytes}, {"l0c_bytes", &p->l0c_bytes}};
}

}  // namespace

Result<DeviceProfile> ParseDeviceProfile(const std::string& toml_text) {
  toml::table table;
  try {  // toml++ reports syntax errors by exception: caught here, at the library's edge
    table = toml::parse(std::string_view(toml_text), std::string_view("device profile"));
  } catch (const toml::parse_error& e) {
    std::ostringstream out;
    out << "device profile: " << e.description() << " at line " << e.source().begin.line;
    return Status::InvalidArgument(out.str());
  }
  DeviceProfile profile;
  auto numeric = NumericFields(&profile);
  auto integer = IntegerFields(&profile);
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (name == "name") {
      if (!node.is_string())
        return Status::InvalidArgument("device profile: name must be a string");
      profile.name = node.as_string()->get();
      continue;
    }
    if (name == "vector_cores" || name == "cube_cores") {
      if (!node.is_integer() || node.as_integer()->get() < 1 || node.as_integer()->get() > 4096) {
        return Status::InvalidArgument("device profile: " + name + " must be an integer 1..4096");
      }
      (name == "vector_cores" ? profile.vector_cores : profile.cube_cores) =
          static_cast<int>(node.as_integer()->get());
      continue;
    }
    if (name == "que_buffers_per_position") {  // 64 buffers per kernel bound it from above
      if (!node.is_integer() || node.as_integer()->get() < 1 || node.as_integer()->get() > 64) {
        return Status::InvalidArgument("device profile: " + name + " must be an integer 1..64");
      }
      profile.que_buffers_per_position = static_cast<int>(node.as_integer()->get());
      continue;
    }
    if (auto it = integer.find(name); it != integer.end()) {
      // Each memory is a static array in every emulated kernel: bounded from above too.
      if (!node.is_integer() || node.as_integer()->get() < 1024 ||
          node.as_integer()->get() > (64 << 20)) {
        return Status::InvalidArgument("device profile: " + name +
                                       " must be an integer from 1024 to 67108864 (bytes)");
      }
      *it->second = node.as_integer()->get();
      continue;
    }
    auto it = numeric.find(name);
    if (it == numeric.end()) {
      return Status::InvalidArgument("device profile: unknown key '" + name + "'");
    }
    std::optional<double> value = node.value<double>();
    // copy_setup_us and launch_overhead_us may be zero; every rate must be positive.
    const bool may_be_zero =
        name == "copy_setup_us" || name == "launch_overhead_us" || name == "vector_issue_cycles";
    if (!value || !std::isfinite(*value) || *value < 0 || (*value == 0 && !may_be_zero)) {
      return Status::InvalidArgument("device profile: " + name + " must be a positive number");
    }
    *it->second = *value;
  }
  return profile;
}

std::string DescribeDevice(const DeviceProfile& p) {
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s: %d vector cores (blocks beyond them run in further waves), %d cube cores, "
                "%lld KB Unified Buffer per core, about %.2g GHz, vector unit %.0f bytes per "
                "cycle (one 256-byte repeat = 64 float or 128 half), HBM about %.0f GB/s shared "
                "by all cores, 32-byte copy alignment. Figures are approximate; kernel speed is "
                "estimated, not measured.",
                p.name.c_str(), p.vector_cores, p.cube_cores, p.ub_bytes / 1024, p.clock_ghz,
                p.vector_bytes_per_cycle, p.hbm_gbps);
  return text;
}

std::vector<std::string> CompileDefines(const DeviceProfile& profile) {
  return {"-DCANNBOT_VECTOR_CORES=" + std::to_string(profile.vector_cores),
          "-DCANNBOT_UB_BYTES=" + std::to_string(profile.ub_bytes),
          "-DCANNBOT_QUE_BUFFERS_PER_POSITION=" +
              std::to_string(profile.que_buffers_per_position),
          "-DCANNBOT_L1_BYTES=" + std::to_string(profile.l1_bytes),
          "-DCANNBOT_L0A_BYTES=" + std::to_string(profile.l0a_bytes),
          "-DCANNBOT_L0B_BYTES=" + std::to_string(profile.l0b_bytes),
          "-DCANNBOT_L0C_BYTES=" + std::to_string(profile.l0c_bytes)};
}

}  // namespace cannbot::ascendc
