// cannbot_ascendc_atomic.h: the atomic modes of copies out to global memory (SetAtomicAdd,
// SetAtomicMax, SetAtomicMin, SetAtomicType, SetAtomicNone) and InitGlobalMemory.
//
// While a mode is set, every copy out (DataCopy, DataCopyPad, Fixpipe: StoreToGm) combines
// each element with the one in global memory, in the mode's type, instead of overwriting it;
// that is how many blocks accumulate into one tensor. Each block starts with no mode.
//
// Written from the public Ascend C documentation; not vendor code. Thread-safety: none.
#ifndef CANNBOT_ASCENDC_ATOMIC_H
#define CANNBOT_ASCENDC_ATOMIC_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cannbot_ascendc_tensor.h"

namespace AscendC {
namespace cannbot_detail {

// SetAtomicAdd/Max/Min<T>: every later copy out to global memory (DataCopy, DataCopyPad,
// Fixpipe) combines each element with the one already there, in T, until SetAtomicNone;
// SetAtomicType<T> changes the type and keeps the operation. The device does this in the
// memory system, which is what lets many blocks accumulate into one tensor. A copy of another
// element type while the mode is set is `bad-argument` (the device would combine the bits as
// the mode's type).
template <typename T>
inline T CombineAtomic(cannbot_ascendc::AtomicOp op, T old_value, T value) {
  using Op = cannbot_ascendc::AtomicOp;
  if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
    using U = typename std::make_unsigned<T>::type;  // wraps, never undefined
    if (op == Op::kAdd) return static_cast<T>(static_cast<U>(old_value) + static_cast<U>(value));
  } else {
    if (op == Op::kAdd) return static_cast<T>(static_cast<float>(old_value) +
                                              static_cast<float>(value));
  }
  const bool take = op == Op::kMax ? static_cast<float>(value) > static_cast<float>(old_value)
                                   : static_cast<float>(value) < static_cast<float>(old_value);
  return take ? value : old_value;
}

template <typename T>
inline void StoreToGm(uint8_t* to, const uint8_t* from, uint64_t bytes, const char* api) {
  const cannbot_ascendc::AtomicMode& atomic = cannbot_ascendc::R().atomic();
  if (atomic.op == cannbot_ascendc::AtomicOp::kNone) {
    std::memcpy(to, from, bytes);
    return;
  }
  if (std::strcmp(atomic.type, cannbot_ascendc::DtypeName<T>()) != 0) {
    cannbot_ascendc::Violation("bad-argument",
                               "%s copies %s elements to global memory while the atomic mode "
                               "is set for %s (SetAtomicAdd/Max/Min<T>); the device would "
                               "combine them as %s",
                               api, cannbot_ascendc::DtypeName<T>(), atomic.type, atomic.type);
  }
  for (uint64_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T old_value, value;
    std::memcpy(&old_value, to + i, sizeof(T));
    std::memcpy(&value, from + i, sizeof(T));
    const T combined = CombineAtomic(atomic.op, old_value, value);
    std::memcpy(to + i, &combined, sizeof(T));
  }
}

template <typename T>
inline void SetAtomic(cannbot_ascendc::AtomicOp op, const char* api) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, _Float16>::value ||
                    std::is_same<T, bfloat16_t>::value || std::is_same<T, int32_t>::value ||
                    std::is_same<T, int16_t>::value || std::is_same<T, int8_t>::value,
                "SetAtomicAdd/Max/Min/Type take float, half, bfloat16_t, int32_t, int16_t or "
                "int8_t");
  cannbot_ascendc::R().RequireBlock(api);
  cannbot_ascendc::AtomicMode& mode = cannbot_ascendc::R().atomic();
  mode.op = op;
  mode.type = cannbot_ascendc::DtypeName<T>();
}

}  // namespace cannbot_detail

template <typename T>
inline void SetAtomicAdd() {
  cannbot_detail::SetAtomic<T>(cannbot_ascendc::AtomicOp::kAdd, "SetAtomicAdd");
}
template <typename T>
inline void SetAtomicMax() {
  cannbot_detail::SetAtomic<T>(cannbot_ascendc::AtomicOp::kMax, "SetAtomicMax");
}
template <typename T>
inline void SetAtomicMin() {
  cannbot_detail::SetAtomic<T>(cannbot_ascendc::AtomicOp::kMin, "SetAtomicMin");
}
// The type of the mode already set (SetAtomicType before any SetAtomicAdd/Max/Min: no mode).
template <typename T>
inline void SetAtomicType() {
  cannbot_detail::SetAtomic<T>(cannbot_ascendc::R().atomic().op, "SetAtomicType");
}
inline void SetAtomicNone() {
  cannbot_ascendc::R().RequireBlock("SetAtomicNone");
  cannbot_ascendc::R().atomic() = cannbot_ascendc::AtomicMode();
}

// InitGlobalMemory (and its older name InitOutput): `size` elements of `gm` set to `value`,
// as the device does it, through the UB and out by MTE3 (counted so); the atomic mode applies.
template <typename T>
inline void InitGlobalMemory(const GlobalTensor<T>& gm, const uint64_t size,
                             const typename std::common_type<T>::type value) {
  constexpr const char* kApi = "InitGlobalMemory";
  cannbot_ascendc::Runtime& rt = cannbot_ascendc::R();
  rt.RequireBlock(kApi);
  uint8_t* to = rt.TranslateGm(gm.cb_addr_, size * sizeof(T), /*write=*/true,
                               static_cast<int>(sizeof(T) * 8), kApi,
                               cannbot_ascendc::DtypeName<T>());
  for (uint64_t i = 0; i < size; ++i) {
    cannbot_detail::StoreToGm<T>(to + i * sizeof(T), reinterpret_cast<const uint8_t*>(&value),
                                 sizeof(T), kApi);
  }
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmBytes, size * sizeof(T));
  cannbot_ascendc::Count(cannbot_ascendc::kUbToGmCopies, 1);
}
template <typename T>
inline void InitOutput(const GlobalTensor<T>& gm, const uint64_t size,
                       const typename std::common_type<T>::type value = 0) {
  InitGlobalMemory<T>(gm, size, value);
}

}  // namespace AscendC

#endif  // CANNBOT_ASCENDC_ATOMIC_H
