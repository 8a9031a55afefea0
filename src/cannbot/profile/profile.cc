#include "cannbot/profile/profile.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace cannbot::profile {
namespace {

using nlohmann::json;

const std::set<std::string> kTopKeys = {"format", "version", "source_tool", "device", "kernels",
                                        "notes"};
const std::set<std::string> kKernelKeys = {"name",     "type",        "core_type",    "launches",
                                           "duration_us", "block_dim", "grid",        "block",
                                           "input_shapes", "input_dtypes", "metrics"};

Status Bad(const std::string& path, const std::string& problem) {
  return Status::InvalidArgument("profile JSON: " + path + ": " + problem);
}

// A unit for metrics written as a bare number, inferred from the canonical naming scheme.
std::string DefaultUnit(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with("_ratio") || ends_with("_rate") || ends_with("_utilization") ||
      ends_with("_share") || ends_with("_fraction") || name == "achieved_occupancy") {
    return "ratio";
  }
  if (ends_with("_us")) return "us";
  if (ends_with("_ms")) return "ms";
  if (name == "memory_bandwidth" || name == "peak_memory_bandwidth") return "GB/s";
  if (name == "gflops" || name == "peak_gflops") return "GFLOP/s";
  if (name == "arithmetic_intensity") return "flop/byte";
  if (ends_with("cycles")) return "cycles";
  return "";
}

Status ReadString(const json& object, const char* key, const std::string& path,
                  std::string* out) {
  auto it = object.find(key);
  if (it == object.end()) return Status::Ok();
  if (!it->is_string()) return Bad(path + "." + key, "expected a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Result<Metric> ReadMetric(const json& value, const std::string& name, const std::string& path) {
  Metric metric;
  if (value.is_number()) {
    metric.value = value.get<double>();
    metric.unit = DefaultUnit(name);
    return metric;
  }
  if (!value.is_object()) return Bad(path, "expected {\"value\": number, \"unit\": string}");
  for (const auto& [key, unused] : value.items()) {
    if (key != "value" && key != "unit" && key != "note") {
      return Bad(path + "." + key, "unknown field");
    }
  }
  auto v = value.find("value");
  if (v == value.end() || !v->is_number()) return Bad(path + ".value", "expected a number");
  metric.value = v->get<double>();
  auto unit = value.find("unit");
  if (unit == value.end()) {
    metric.unit = DefaultUnit(name);
  } else if (unit->is_string()) {
    metric.unit = unit->get<std::string>();
  } else {
    return Bad(path + ".unit", "expected a string");
  }
  CANNBOT_RETURN_IF_ERROR(ReadString(value, "note", path, &metric.note));
  return metric;
}

Status ReadKernelNumbers(const json& k, const std::string& path, KernelProfile* kernel) {
  if (auto it = k.find("launches"); it != k.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0) {
      return Bad(path + ".launches", "expected a non-negative integer");
    }
    kernel->launches = it->get<int64_t>();
  }
  if (auto it = k.find("duration_us"); it != k.end()) {
    if (!it->is_number() || it->get<double>() < 0) {
      return Bad(path + ".duration_us", "expected a non-negative number");
    }
    kernel->duration_us = it->get<double>();
  }
  if (auto it = k.find("block_dim"); it != k.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < 0) {
      return Bad(path + ".block_dim", "expected a non-negative integer or null");
    }
    kernel->block_dim = it->get<int64_t>();
  }
  return Status::Ok();
}

Result<KernelProfile> ReadKernel(const json& k, const std::string& path) {
  if (!k.is_object()) return Bad(path, "expected an object");
  for (const auto& [key, unused] : k.items()) {
    if (kKernelKeys.count(key) == 0) return Bad(path + "." + key, "unknown field");
  }
  KernelProfile kernel;
  auto name = k.find("name");
  if (name == k.end() || !name->is_string() || name->get<std::string>().empty()) {
    return Bad(path + ".name", "expected a non-empty string");
  }
  kernel.name = name->get<std::string>();
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "type", path, &kernel.type));
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "core_type", path, &kernel.core_type));
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "grid", path, &kernel.grid));
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "block", path, &kernel.block));
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "input_shapes", path, &kernel.input_shapes));
  CANNBOT_RETURN_IF_ERROR(ReadString(k, "input_dtypes", path, &kernel.input_dtypes));
  CANNBOT_RETURN_IF_ERROR(ReadKernelNumbers(k, path, &kernel));
  if (auto metrics = k.find("metrics"); metrics != k.end()) {
    if (!metrics->is_object()) return Bad(path + ".metrics", "expected an object");
    for (const auto& [metric_name, value] : metrics->items()) {
      CANNBOT_ASSIGN_OR_RETURN(Metric metric,
                               ReadMetric(value, metric_name, path + ".metrics." + metric_name));
      kernel.metrics[metric_name] = std::move(metric);
    }
  }
  return kernel;
}

Status ReadHeader(const json& in, Profile* profile) {
  if (auto it = in.find("format"); it != in.end() && *it != kJsonFormat) {
    return Bad("format", std::string("expected \"") + kJsonFormat + "\"");
  }
  if (auto it = in.find("version"); it != in.end()) {
    if (!it->is_number_integer()) return Bad("version", "expected an integer");
    if (it->get<int64_t>() != kJsonVersion) {
      return Bad("version", "version " + it->dump() + " is not supported (this cannbot reads " +
                                std::to_string(kJsonVersion) + ")");
    }
  }
  CANNBOT_RETURN_IF_ERROR(ReadString(in, "source_tool", "", &profile->source_tool));
  CANNBOT_RETURN_IF_ERROR(ReadString(in, "device", "", &profile->device));
  if (auto notes = in.find("notes"); notes != in.end()) {
    if (!notes->is_array()) return Bad("notes", "expected an array of strings");
    for (size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string()) {
        return Bad("notes[" + std::to_string(i) + "]", "expected a string");
      }
      profile->notes.push_back((*notes)[i].get<std::string>());
    }
  }
  return Status::Ok();
}

std::string Us(double us) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.1f us", us);
  return text;
}

bool IsCommunication(const KernelProfile& k) { return k.core_type == "COMMUNICATION"; }

}  // namespace

const Metric* KernelProfile::Find(const std::string& metric_name) const {
  auto it = metrics.find(metric_name);
  return it == metrics.end() ? nullptr : &it->second;
}

double KernelProfile::MeanLaunchUs() const {
  return launches > 1 ? duration_us / static_cast<double>(launches) : duration_us;
}

double Profile::TotalDurationUs() const {
  double total = 0;
  for (const KernelProfile& k : kernels) total += k.duration_us;
  return total;
}

nlohmann::json Profile::ToJson() const {
  json out = {{"format", kJsonFormat}, {"version", kJsonVersion}, {"source_tool", source_tool},
              {"device", device}};
  json list = json::array();
  for (const KernelProfile& k : kernels) {
    json kernel = {{"name", k.name}};
    auto put = [&](const char* key, const std::string& value) {
      if (!value.empty()) kernel[key] = value;
    };
    put("type", k.type);
    put("core_type", k.core_type);
    kernel["launches"] = k.launches;
    kernel["duration_us"] = k.duration_us;
    if (k.block_dim) kernel["block_dim"] = *k.block_dim;
    put("grid", k.grid);
    put("block", k.block);
    put("input_shapes", k.input_shapes);
    put("input_dtypes", k.input_dtypes);
    json metrics = json::object();
    for (const auto& [name, metric] : k.metrics) {
      metrics[name] = {{"value", metric.value}, {"unit", metric.unit}};
      if (!metric.note.empty()) metrics[name]["note"] = metric.note;
    }
    kernel["metrics"] = std::move(metrics);
    list.push_back(std::move(kernel));
  }
  out["kernels"] = std::move(list);
  out["notes"] = notes;
  return out;
}

Result<Profile> Profile::FromJson(const nlohmann::json& in) {
  if (!in.is_object()) return Bad("(document)", "expected a JSON object");
  for (const auto& [key, unused] : in.items()) {
    if (kTopKeys.count(key) == 0) return Bad(key, "unknown field");
  }
  Profile profile;
  CANNBOT_RETURN_IF_ERROR(ReadHeader(in, &profile));
  auto kernels = in.find("kernels");
  if (kernels == in.end() || !kernels->is_array()) {
    return Bad("kernels", "expected an array of kernels");
  }
  for (size_t i = 0; i < kernels->size(); ++i) {
    CANNBOT_ASSIGN_OR_RETURN(KernelProfile kernel,
                             ReadKernel((*kernels)[i], "kernels[" + std::to_string(i) + "]"));
    profile.kernels.push_back(std::move(kernel));
  }
  return profile;
}

Result<const KernelProfile*> Profile::Pick(const std::string& name, std::string* why) const {
  if (kernels.empty()) return Status::InvalidArgument("the profile has no kernels");
  if (!name.empty()) {
    for (const KernelProfile& k : kernels) {
      if (k.name == name) {
        if (why) *why = "named with --kernel";
        return &k;
      }
    }
    std::vector<const KernelProfile*> matches;
    for (const KernelProfile& k : kernels) {
      if (k.name.find(name) != std::string::npos) matches.push_back(&k);
    }
    if (matches.size() == 1) {
      if (why) *why = "the only kernel whose name contains '" + name + "'";
      return matches[0];
    }
    if (matches.empty()) {
      std::string some;
      for (size_t i = 0; i < kernels.size() && i < 5; ++i) some += " '" + kernels[i].name + "'";
      return Status::NotFound("no kernel named '" + name + "' in the profile; it has " +
                              std::to_string(kernels.size()) + " kernels:" + some +
                              (kernels.size() > 5 ? " ..." : ""));
    }
    std::string list;
    for (size_t i = 0; i < matches.size() && i < 5; ++i) list += " '" + matches[i]->name + "'";
    return Status::InvalidArgument("'" + name + "' matches " + std::to_string(matches.size()) +
                                   " kernels:" + list + (matches.size() > 5 ? " ..." : "") +
                                   "; give the full name");
  }
  const KernelProfile* best = nullptr;
  size_t candidates = 0;
  size_t communication = 0;
  for (const KernelProfile& k : kernels) {
    if (IsCommunication(k)) {
      ++communication;
      continue;
    }
    ++candidates;
    if (best == nullptr || k.duration_us > best->duration_us) best = &k;
  }
  if (best == nullptr) {
    return Status::InvalidArgument("the profile holds only communication tasks, no kernels");
  }
  if (why) {
    if (candidates == 1) {
      *why = "the only kernel in the profile";
    } else {
      const double total = TotalDurationUs();
      char share[32];
      std::snprintf(share, sizeof(share), "%.0f%%",
                    total > 0 ? 100.0 * best->duration_us / total : 0.0);
      *why = "the most total time of " + std::to_string(candidates) + " kernels: " +
             Us(best->duration_us) + " over " + std::to_string(best->launches) + " launch" +
             (best->launches == 1 ? "" : "es") + ", " + share + " of the profile's " +
             Us(total) + (communication > 0 ? ", communication tasks not counted" : "") +
             " (pick another with --kernel NAME)";
    }
  }
  return best;
}

}  // namespace cannbot::profile
