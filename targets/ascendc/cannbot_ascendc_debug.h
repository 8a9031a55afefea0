// cannbot_ascendc_debug.h: kernel-side printing (AscendC::printf, PRINTF, DumpTensor) and the
// static tensor programming entry points (InitSocState, LocalMemAllocator).
//
// Printing goes to the child's stdout, each line tagged (cannbot_print.h) so that cannbot tells
// it from the emulation's own stats and violation lines and does not hold it against the
// kernel. DumpTensor prints one line:
//   cannbot-ascendc-print: DumpTensor: desc=<desc>, <position>, <n> elements: v0 v1 ...
// with values as float (integers as integers), at most `dumpSize` elements of the tensor.
// Printing is not counted as work (on the board it goes through a debug channel that is off in
// production builds).
//
// Static tensors: InitSocState has nothing to set up on the CPU; LocalMemAllocator hands out
// UB from address 0 upwards, 32-byte aligned, each tensor its own buffer for the rules.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_DEBUG_H
#define CANNBOT_ASCENDC_DEBUG_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "cannbot_print.h"

#include "cannbot_ascendc_tensor.h"

namespace AscendC {

// A template, so that with `using namespace AscendC` an unqualified printf call picks this one
// over the C library's (a template beats a C variadic function in overload resolution).
template <typename... Args>
inline void printf(const char* format, Args... args) {
  char buffer[4096];
  if constexpr (sizeof...(Args) == 0) {
    std::snprintf(buffer, sizeof(buffer), "%s", format);
  } else {
    std::snprintf(buffer, sizeof(buffer), format, args...);
  }
  cannbot_ascendc::EmitPrinted(buffer);
}
#define PRINTF AscendC::printf

namespace cannbot_detail {
template <typename T>
inline void DumpValues(const T* data, uint64_t n, uint32_t desc, const char* where) {
  std::string line = "DumpTensor: desc=" + std::to_string(desc) + ", " + where + ", " +
                     std::to_string(n) + " elements:";
  char value[48];
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral<T>::value) {
      std::snprintf(value, sizeof(value), " %lld", static_cast<long long>(data[i]));
    } else {
      std::snprintf(value, sizeof(value), " %.9g", static_cast<double>(static_cast<float>(data[i])));
    }
    line += value;
  }
  cannbot_ascendc::EmitPrinted(line.c_str());
}
}  // namespace cannbot_detail

template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  const uint64_t n = dumpSize < tensor.cb_size_ ? dumpSize : tensor.cb_size_;
  cannbot_detail::CheckLocalBasic(tensor, n, "DumpTensor");
  cannbot_detail::DumpValues(tensor.cb_data_, n, desc,
                             cannbot_detail::PositionName(tensor.cb_position_));
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  const uint64_t n = tensor.cb_size_ != 0 && tensor.cb_size_ < dumpSize ? tensor.cb_size_ : dumpSize;
  const uint8_t* data = cannbot_ascendc::R().TranslateGm(tensor.cb_addr_, n * sizeof(T), false,
                                                         static_cast<int>(8 * sizeof(T)),
                                                         "DumpTensor");
  cannbot_detail::DumpValues(reinterpret_cast<const T*>(data), n, desc, "GM");
}

// GetSystemCycle: the core's cycle counter, which kernels read to time a section of their own.
// There are no cycles here; the instructions the block has issued so far (vector repeats and
// copies) stand in: the count grows as the kernel works and is the same on every run, so
// nothing a kernel computes from it depends on the machine it is validated on.
inline int64_t GetSystemCycle() {
  const cannbot_ascendc::Counters& c = cannbot_ascendc::R().counters();
  return static_cast<int64_t>(c.vector_repeats + c.gm_to_ub_copies + c.ub_to_gm_copies +
                              c.cube_fractals);
}

// DivCeil (the kernel samples' ceiling division) and CeilDivision (its documented form): a
// divisor of 0 gives 0, as CeilDivision's page states.
template <typename T, typename U>
constexpr auto DivCeil(T num1, U num2) -> std::common_type_t<T, U> {
  return num2 == 0 ? 0 : (num1 + num2 - 1) / num2;
}
constexpr int32_t CeilDivision(int32_t num1, int32_t num2) { return DivCeil(num1, num2); }

// ---- static tensor programming ----
inline void InitSocState() {}

enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
  static_assert(hard == Hardware::UB,
                "cannbot ascendc emulation: LocalMemAllocator hands out UB only (no cube buffers)");

 public:
  uint32_t GetCurAddr() const { return next_; }
  template <typename T, uint32_t tileSize>
  LocalTensor<T> Alloc() {
    return Alloc<T>(tileSize);
  }
  template <typename T>
  LocalTensor<T> Alloc(uint32_t tileSize) {
    const uint32_t addr = next_;
    const uint64_t bytes = static_cast<uint64_t>(tileSize) * sizeof(T);
    next_ = static_cast<uint32_t>((addr + bytes + cannbot_ascendc::kBlockBytes - 1) /
                                  cannbot_ascendc::kBlockBytes * cannbot_ascendc::kBlockBytes);
    return LocalTensor<T>(TPosition::VECCALC, addr, tileSize);
  }

 private:
  uint32_t next_ = 0;
};

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_DEBUG_H
