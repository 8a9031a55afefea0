// cannbot_tpl_dispatch.h: the launch side of tiling template programming
// (ascendc/host_api/tiling/template_argument.h). A templated kernel entry
//   template <uint32_t schMode> __global__ __aicore__ void add_example(GM_ADDR x, ...)
// is instantiated for every combination its ASCENDC_TPL_SEL lists, and one C function runs the
// instance whose tiling key is the key the host tiling set, as the CANN build and runtime do.
//
// The kernel translation unit cannbot generates (ascendc/package.cc) defines, before including
// this file once, after the kernel:
//   CANNBOT_TPL_LAUNCHER   the C function to define ("add_example_tpl_launch")
//   CANNBOT_TPL_PARAMS     its parameters ("GM_ADDR a0, GM_ADDR a1, ...")
//   CANNBOT_TPL_ARGS       their names ("a0, a1, ...")
//   CANNBOT_TPL_NAMES      the entry's template parameter names, quoted, in order
//   CANNBOT_TPL_INSTANCE(c) the instance of combination c, each template argument written as
//                          CANNBOT_TPL_VALUE(c, type, name) or CANNBOT_TPL_TYPE(c, name)
// Template parameters are matched to declared ones by name. A key no listed combination has is
// the `tiling-key` violation.
//
// Written for cannbot; not vendor code. Thread-safety: one launch at a time.
#ifndef CANNBOT_TPL_DISPATCH_H
#define CANNBOT_TPL_DISPATCH_H

#include <cstddef>
#include <cstdint>
#include <utility>

#include "ascendc/host_api/tiling/template_argument.h"
#include "kernel_operator.h"

namespace cannbot_tpl {

// The C type of a dtype parameter's value, for an entry that takes it as `typename`.
template <uint64_t D>
struct DtypeOf {};
template <> struct DtypeOf<C_DT_FLOAT> { using type = float; };
template <> struct DtypeOf<C_DT_FLOAT16> { using type = half; };
template <> struct DtypeOf<C_DT_BF16> { using type = bfloat16_t; };
template <> struct DtypeOf<C_DT_INT8> { using type = int8_t; };
template <> struct DtypeOf<C_DT_UINT8> { using type = uint8_t; };
template <> struct DtypeOf<C_DT_INT16> { using type = int16_t; };
template <> struct DtypeOf<C_DT_UINT16> { using type = uint16_t; };
template <> struct DtypeOf<C_DT_INT32> { using type = int32_t; };
template <> struct DtypeOf<C_DT_UINT32> { using type = uint32_t; };
template <> struct DtypeOf<C_DT_INT64> { using type = int64_t; };
template <> struct DtypeOf<C_DT_UINT64> { using type = uint64_t; };
template <> struct DtypeOf<C_DT_DOUBLE> { using type = double; };
template <> struct DtypeOf<C_DT_BOOL> { using type = bool; };
template <uint64_t D>
using TypeOf = typename DtypeOf<D>::type;

// The declared index of `name`, 0 when it is not declared (a static_assert reports that).
inline constexpr size_t SafeIndex(const ParamList& decl, const char* name) {
  const long at = decl.IndexOf(name);
  return at < 0 ? 0 : static_cast<size_t>(at);
}

}  // namespace cannbot_tpl

#define CANNBOT_TPL_VALUE(combo, type, name) \
  static_cast<type>((combo).v[::cannbot_tpl::SafeIndex(cannbot_tpl_declared, #name)])
#define CANNBOT_TPL_TYPE(combo, name) \
  ::cannbot_tpl::TypeOf<(combo).v[::cannbot_tpl::SafeIndex(cannbot_tpl_declared, #name)]>

namespace cannbot_tpl_launch {

inline constexpr const char* kNames[] = {CANNBOT_TPL_NAMES};
inline constexpr bool AllDeclared() {
  for (const char* name : kNames) {
    if (cannbot_tpl_declared.IndexOf(name) < 0) return false;
  }
  return true;
}
static_assert(!cannbot_tpl_declared.overflow && !cannbot_tpl_selected.overflow,
              "cannbot emulates at most 8 template parameters of 64 values each and 64 "
              "ASCENDC_TPL_ARGS_SEL lists");
static_assert(AllDeclared(),
              "a template parameter of the kernel entry is not declared in its "
              "ASCENDC_TPL_ARGS_DECL (cannbot matches them by name)");
inline constexpr size_t kCount =
    ::cannbot_tpl::ComboCount(cannbot_tpl_declared, cannbot_tpl_selected);
static_assert(kCount > 0, "the kernel's ASCENDC_TPL_SEL selects no combination");
static_assert(kCount <= 512, "cannbot instantiates at most 512 template combinations");

template <size_t I>
inline constexpr ::cannbot_tpl::Combo kCombo =
    ::cannbot_tpl::ComboAt(cannbot_tpl_declared, cannbot_tpl_selected, I);

template <size_t I>
inline bool Run(uint64_t key, CANNBOT_TPL_PARAMS) {
  if (::cannbot_tpl::KeyOf(cannbot_tpl_declared, kCombo<I>) != key) return false;
  CANNBOT_TPL_INSTANCE(kCombo<I>)(CANNBOT_TPL_ARGS);
  return true;
}

template <size_t... I>
inline bool RunAny(std::index_sequence<I...>, uint64_t key, CANNBOT_TPL_PARAMS) {
  return (Run<I>(key, CANNBOT_TPL_ARGS) || ...);
}

}  // namespace cannbot_tpl_launch

extern "C" void CANNBOT_TPL_LAUNCHER(CANNBOT_TPL_PARAMS) {
  const uint64_t key = ::cannbot_ascendc::R().tiling_key();
  if (::cannbot_tpl_launch::RunAny(std::make_index_sequence<::cannbot_tpl_launch::kCount>(), key,
                                   CANNBOT_TPL_ARGS)) {
    return;
  }
  if (key == ::cannbot_tpl::kBadKey) {
    ::cannbot_ascendc::Violation("tiling-key",
                                 "the tiling passed GET_TPL_TILING_KEY a value its "
                                 "ASCENDC_TPL_ARGS_DECL does not declare");
  }
  ::cannbot_ascendc::Violation("tiling-key",
                               "the tiling chose key %llu, which no combination of the kernel's "
                               "ASCENDC_TPL_SEL has: no instance of the template entry runs",
                               static_cast<unsigned long long>(key));
}

#endif  // CANNBOT_TPL_DISPATCH_H
