#include "cannbot/validator/cpu_info.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace cannbot::validator {
namespace {

// The features that change which kernel is fastest, in the order they are reported.
const char* const kSpeedFeatures[] = {
    "sse4_2",      "avx",         "avx2",        "fma",         "f16c",      "avx_vnni",
    "avx512f",     "avx512bw",    "avx512vl",    "avx512_vnni", "avx512_bf16", "avx512_fp16",
    "amx_tile",    "amx_bf16",    "amx_int8"};

std::string Trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

int ToInt(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return 0;
  }
}

// "32768K" / "1024 KB" -> bytes.
int64_t CacheSizeBytes(const std::string& text) {
  int64_t value = 0;
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + (text[i++] - '0');
  const char unit = i < text.size() ? text[i] : ' ';
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  return value;
}

int64_t LastLevelCacheBytes() {
  int64_t best = 0;
  int best_level = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    if (level >= best_level) {
      best_level = level;
      best = CacheSizeBytes(size);
    }
  }
  return best;
}

}  // namespace

bool CpuInfo::Has(const std::string& feature) const {
  return std::find(features.begin(), features.end(), feature) != features.end();
}

std::string CpuInfo::FeatureText() const {
  std::string text;
  for (const std::string& f : features) text += (text.empty() ? "" : " ") + f;
  return text.empty() ? "none" : text;
}

std::string CpuInfo::Key() const {
  std::ostringstream key;
  key << vendor << " family " << family << " model " << model << " stepping " << stepping
      << ", " << name << ", " << logical_cpus << " CPUs, " << FeatureText();
  return key.str();
}

std::string CpuInfo::Microarchitecture() const {
  std::string known;
  if (vendor == "AuthenticAMD") {
    if (family == 23) known = model >= 0x30 ? "Zen 2" : "Zen/Zen+";
    if (family == 25) {
      const bool zen4 = (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
                        (model >= 0xa0 && model <= 0xaf);
      known = zen4 ? "Zen 4" : "Zen 3";
    }
    if (family == 26) known = "Zen 5";
  } else if (vendor == "GenuineIntel" && family == 6) {
    switch (model) {
      case 0x3f: known = "Haswell"; break;
      case 0x4f: known = "Broadwell"; break;
      case 0x55: known = "Skylake/Cascade Lake"; break;
      case 0x6a: case 0x6c: known = "Ice Lake"; break;
      case 0x8f: known = "Sapphire Rapids"; break;
      case 0xcf: known = "Emerald Rapids"; break;
      case 0xad: case 0xae: known = "Granite Rapids"; break;
      default: break;
    }
  }
  const std::string numbers =
      "family " + std::to_string(family) + " model " + std::to_string(model);
  return known.empty() ? numbers : known + " (" + numbers + ")";
}

CpuInfo ParseCpuInfo(const std::string& text) {
  CpuInfo info;
  info.logical_cpus = 0;
  std::istringstream in(text);
  std::string line;
  bool first_block = true;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (info.logical_cpus > 0 && Trim(line).empty()) first_block = false;
      continue;
    }
    const std::string key = Trim(line.substr(0, colon));
    const std::string value = Trim(line.substr(colon + 1));
    if (key == "processor") ++info.logical_cpus;
    if (!first_block) continue;
    if (key == "vendor_id") info.vendor = value;
    else if (key == "cpu family") info.family = ToInt(value);
    else if (key == "model") info.model = ToInt(value);
    else if (key == "stepping") info.stepping = ToInt(value);
    else if (key == "model name") info.name = value;
    else if (key == "flags") {
      std::set<std::string> flags;
      std::istringstream words(value);
      for (std::string w; words >> w;) flags.insert(w);
      for (const char* f : kSpeedFeatures) {
        if (flags.count(f) > 0) info.features.push_back(f);
      }
    }
  }
  if (info.name.empty()) info.name = "unknown CPU";
  info.logical_cpus = std::max(info.logical_cpus, 1);
  return info;
}

CpuInfo ReadCpuInfo() {
  std::ifstream file("/proc/cpuinfo");
  std::stringstream text;
  text << file.rdbuf();
  CpuInfo info = ParseCpuInfo(text.str());
  // Online CPUs, not the ones listed: a container may see fewer than the host has.
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0) info.logical_cpus = static_cast<int>(online);
  info.llc_bytes = LastLevelCacheBytes();
  return info;
}

}  // namespace cannbot::validator
