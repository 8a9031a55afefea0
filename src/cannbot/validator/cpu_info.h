// CpuInfo: what this x86-64 CPU is, as far as kernel speed is concerned.
//
// Read from /proc/cpuinfo and sysfs (no CPUID instructions, so it also describes what a
// virtual machine's guest sees, which is what kernels run on): vendor, family/model/stepping,
// the model name, the instruction-set features that change which code is fastest (AVX2, FMA,
// AVX-512 and its FP16/BF16/VNNI extensions, AMX) and the last-level cache size.
//
// `Key()` names a machine *model*: two hosts with the same CPU model, features and CPU count
// get the same key, so tuned results are shared between them and never between different
// CPUs (an AVX-512 winner is not offered to an AVX2 machine).
//
// Thread-safety: ReadCpuInfo() reads files only; CpuInfo is a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cannbot::validator {

struct CpuInfo {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel"
  int family = 0;
  int model = 0;
  int stepping = 0;
  std::string name;    // the model name, "AMD EPYC 7B13" (virtual machines often trim it)
  int logical_cpus = 1;
  // The speed-relevant features present, in a fixed order ("avx2", "fma", "avx512f",
  // "avx512_fp16", "amx_tile", ...), as /proc/cpuinfo spells them.
  std::vector<std::string> features;
  int64_t llc_bytes = 0;  // last-level cache size; 0 when sysfs does not say

  bool Has(const std::string& feature) const;
  // "avx2 fma f16c" (the features, space-separated; "none" when empty).
  std::string FeatureText() const;
  // "AuthenticAMD family 25 model 1 stepping 1, AMD EPYC, 2 CPUs, avx2 fma ...".
  std::string Key() const;
  // "Zen 3 (family 25 model 1)", "Sapphire Rapids (family 6 model 143)" when known, else
  // the family and model numbers.
  std::string Microarchitecture() const;
};

// This machine's CPU.
CpuInfo ReadCpuInfo();
// Parses /proc/cpuinfo text (the first processor's block decides); `logical_cpus` from the
// number of "processor" lines. For tests and for files collected elsewhere.
CpuInfo ParseCpuInfo(const std::string& cpuinfo_text);

}  // namespace cannbot::validator
