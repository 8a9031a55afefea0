#include "cannbot/ascendc/stats.h"

#include <sstream>

namespace cannbot::ascendc {

namespace {

// The stats line's names for LaunchStats::cube_high_water_bytes, in its order.
constexpr const char* kCubeHighWaterFields[4] = {"l1_high_water_bytes", "l0a_high_water_bytes",
                                                 "l0b_high_water_bytes", "l0c_high_water_bytes"};

using Json = nlohmann::json;

// The counter fields by JSON key; one table for parsing and printing.
constexpr struct {
  const char* key;
  uint64_t WorkCounters::*field;
} kCounterFields[] = {
    {"gm_to_ub_bytes", &WorkCounters::gm_to_ub_bytes},
    {"ub_to_gm_bytes", &WorkCounters::ub_to_gm_bytes},
    {"ub_to_ub_bytes", &WorkCounters::ub_to_ub_bytes},
    {"gm_to_ub_copies", &WorkCounters::gm_to_ub_copies},
    {"ub_to_gm_copies", &WorkCounters::ub_to_gm_copies},
    {"vector_instructions", &WorkCounters::vector_instructions},
    {"vector_repeats", &WorkCounters::vector_repeats},
    {"vector_bytes", &WorkCounters::vector_bytes},
    {"vector_complex_repeats", &WorkCounters::vector_complex_repeats},
    {"scalar_ops", &WorkCounters::scalar_ops},
};
// Counters a line may leave out (0): added with the matrix path and raw GM pointers.
constexpr struct {
  const char* key;
  uint64_t WorkCounters::*field;
} kOptionalCounterFields[] = {
    {"cube_fractals", &WorkCounters::cube_fractals},
    {"cube_move_bytes", &WorkCounters::cube_move_bytes},
    {"gm_raw_pointers", &WorkCounters::gm_raw_pointers},
    {"ub_raw_pointers", &WorkCounters::ub_raw_pointers},
    {"reg_instructions", &WorkCounters::reg_instructions},
};

Result<uint64_t> Unsigned(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned()) {
    return Status::Aborted(std::string("ascendc stats: '") + key +
                           "' is missing or not a non-negative integer");
  }
  return it->get<uint64_t>();
}

Result<WorkCounters> ParseCounters(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_object()) {
    return Status::Aborted(std::string("ascendc stats: '") + key + "' is missing");
  }
  WorkCounters c;
  for (const auto& f : kCounterFields) {
    CANNBOT_ASSIGN_OR_RETURN(c.*f.field, Unsigned(*it, f.key));
  }
  for (const auto& f : kOptionalCounterFields) {
    if (it->contains(f.key)) {
      CANNBOT_ASSIGN_OR_RETURN(c.*f.field, Unsigned(*it, f.key));
    }
  }
  return c;
}

Json CountersToJson(const WorkCounters& c) {
  Json j = Json::object();
  for (const auto& f : kCounterFields) j[f.key] = c.*f.field;
  for (const auto& f : kOptionalCounterFields) j[f.key] = c.*f.field;
  return j;
}

Result<LaunchStats> ParseLine(const std::string& json_text) {
  Json j = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Aborted("ascendc stats: the line is not a JSON object");
  }
  LaunchStats s;
  CANNBOT_ASSIGN_OR_RETURN(uint64_t version, Unsigned(j, "version"));
  if (version != 1)
    return Status::Aborted("ascendc stats: unknown version " + std::to_string(version));
  CANNBOT_ASSIGN_OR_RETURN(uint64_t block_dim, Unsigned(j, "block_dim"));
  CANNBOT_ASSIGN_OR_RETURN(uint64_t dtype_bits, Unsigned(j, "dtype_bits"));
  // 8 and 64: an operator package whose first output is an 8- or 64-bit integer.
  if (block_dim < 1 || block_dim > 65535 ||
      (dtype_bits != 8 && dtype_bits != 16 && dtype_bits != 32 && dtype_bits != 64)) {
    return Status::Aborted("ascendc stats: block_dim or dtype_bits out of range");
  }
  s.block_dim = static_cast<uint32_t>(block_dim);
  s.dtype_bits = static_cast<uint32_t>(dtype_bits);
  CANNBOT_ASSIGN_OR_RETURN(s.input_bytes, Unsigned(j, "input_bytes"));
  CANNBOT_ASSIGN_OR_RETURN(s.output_bytes, Unsigned(j, "output_bytes"));
  CANNBOT_ASSIGN_OR_RETURN(s.ub_capacity_bytes, Unsigned(j, "ub_capacity_bytes"));
  CANNBOT_ASSIGN_OR_RETURN(s.ub_high_water_bytes, Unsigned(j, "ub_high_water_bytes"));
  CANNBOT_ASSIGN_OR_RETURN(uint64_t buffer_num, Unsigned(j, "buffer_num"));
  CANNBOT_ASSIGN_OR_RETURN(uint64_t occupancy, Unsigned(j, "max_queue_occupancy"));
  if (buffer_num < 1 || buffer_num > 255 || occupancy > 1024) {
    return Status::Aborted("ascendc stats: buffer_num or max_queue_occupancy out of range");
  }
  s.buffer_num = static_cast<int>(buffer_num);
  s.max_queue_occupancy = static_cast<int>(occupancy);
  CANNBOT_ASSIGN_OR_RETURN(s.tiles, Unsigned(j, "tiles"));
  CANNBOT_ASSIGN_OR_RETURN(s.pipe_all_barriers, Unsigned(j, "pipe_all_barriers"));
  auto overlap = j.find("overlap");
  if (overlap == j.end() || !overlap->is_boolean()) {
    return Status::Aborted("ascendc stats: 'overlap' is missing or not a boolean");
  }
  s.overlap = overlap->get<bool>();
  auto bf16 = j.find("bfloat16");  // optional: lines from before bf16 have none
  if (bf16 != j.end()) {
    if (!bf16->is_boolean()) return Status::Aborted("ascendc stats: 'bfloat16' is not a boolean");
    s.bfloat16 = bf16->get<bool>() && s.dtype_bits == 16;
  }
  for (size_t m = 0; m < 4; ++m) {  // optional: lines from before the cube's marks have none
    if (j.contains(kCubeHighWaterFields[m])) {
      CANNBOT_ASSIGN_OR_RETURN(s.cube_high_water_bytes[m], Unsigned(j, kCubeHighWaterFields[m]));
    }
  }
  CANNBOT_ASSIGN_OR_RETURN(s.total, ParseCounters(j, "total"));
  CANNBOT_ASSIGN_OR_RETURN(s.max_block, ParseCounters(j, "max_block"));
  return s;
}

// The text after `prefix` on every line that contains it (a kernel may have left a partial
// line of its own before the emulation's).
std::vector<std::string> Payloads(const std::string& output, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find(prefix);
    if (at != std::string::npos) found.push_back(line.substr(at + prefix.size()));
  }
  return found;
}

}  // namespace

Json LaunchStats::ToJson() const {
  return Json{{"version", version},
              {"block_dim", block_dim},
              {"dtype_bits", dtype_bits},
              {"bfloat16", bfloat16},
              {"input_bytes", input_bytes},
              {"output_bytes", output_bytes},
              {"ub_capacity_bytes", ub_capacity_bytes},
              {"ub_high_water_bytes", ub_high_water_bytes},
              {kCubeHighWaterFields[0], cube_high_water_bytes[0]},
              {kCubeHighWaterFields[1], cube_high_water_bytes[1]},
              {kCubeHighWaterFields[2], cube_high_water_bytes[2]},
              {kCubeHighWaterFields[3], cube_high_water_bytes[3]},
              {"buffer_num", buffer_num},
              {"max_queue_occupancy", max_queue_occupancy},
              {"tiles", tiles},
              {"pipe_all_barriers", pipe_all_barriers},
              {"overlap", overlap},
              {"total", CountersToJson(total)},
              {"max_block", CountersToJson(max_block)}};
}

std::string Violation::Describe() const {
  if (rule == "not-emulated") {  // not the kernel's fault: cannbot cannot run it yet
    return "the kernel uses what cannbot's emulation does not have yet: " + message;
  }
  return "the kernel broke the Ascend C rule " + rule + ": " + message;
}

Result<std::vector<LaunchStats>> ParseAllStats(const std::string& output) {
  std::vector<LaunchStats> all;
  for (const std::string& payload : Payloads(output, kStatsPrefix)) {
    CANNBOT_ASSIGN_OR_RETURN(LaunchStats s, ParseLine(payload));
    all.push_back(std::move(s));
  }
  return all;
}

Result<LaunchStats> ParseStats(const std::string& output) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<LaunchStats> all, ParseAllStats(output));
  if (all.size() != 1) {
    return Status::Aborted("ascendc stats: expected one stats line for one launch, found " +
                           std::to_string(all.size()));
  }
  return std::move(all.front());
}

std::optional<Violation> FindViolation(const std::string& output) {
  for (const std::string& payload : Payloads(output, kViolationPrefix)) {
    const size_t colon = payload.find(": ");
    if (colon == std::string::npos || colon == 0) continue;
    Violation v;
    v.rule = payload.substr(0, colon);
    v.message = payload.substr(colon + 2);
    // A rule name is a lower-case identifier; anything else is not our line.
    bool plausible = true;
    for (char c : v.rule) plausible = plausible && ((c >= 'a' && c <= 'z') || c == '-');
    if (plausible) return v;
  }
  return std::nullopt;
}

CompulsoryTraffic ComputeCompulsoryTraffic(const std::vector<int64_t>& input_elements,
                                           const std::vector<int64_t>& output_elements,
                                           uint32_t dtype_bits) {
  return ComputeCompulsoryTraffic(
      input_elements, output_elements,
      std::vector<uint32_t>(input_elements.size() + output_elements.size(), dtype_bits));
}

CompulsoryTraffic ComputeCompulsoryTraffic(const std::vector<int64_t>& input_elements,
                                           const std::vector<int64_t>& output_elements,
                                           const std::vector<uint32_t>& tensor_bits) {
  CompulsoryTraffic t;
  size_t i = 0;
  auto bytes = [&](int64_t n) {
    const uint64_t width = i < tensor_bits.size() ? tensor_bits[i] / 8 : 0;
    ++i;
    return static_cast<uint64_t>(n) * width;
  };
  for (int64_t n : input_elements) t.input_bytes += bytes(n);
  for (int64_t n : output_elements) t.output_bytes += bytes(n);
  return t;
}

Status CheckCompulsoryTraffic(const LaunchStats& stats, const CompulsoryTraffic& minimum) {
  if (stats.total.gm_to_ub_bytes < minimum.input_bytes) {
    return Status::Aborted("the stats claim " + std::to_string(stats.total.gm_to_ub_bytes) +
                           " bytes read from global memory, fewer than the " +
                           std::to_string(minimum.input_bytes) + " bytes of its inputs");
  }
  if (stats.total.ub_to_gm_bytes < minimum.output_bytes) {
    return Status::Aborted("the stats claim " + std::to_string(stats.total.ub_to_gm_bytes) +
                           " bytes written to global memory, fewer than the " +
                           std::to_string(minimum.output_bytes) + " bytes of its outputs");
  }
  return Status::Ok();
}

}  // namespace cannbot::ascendc
