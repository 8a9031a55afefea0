// template_argument.h: cannbot's emulation of Ascend C "tiling template programming": an
// operator declares its kernel's template parameters once (ASCENDC_TPL_ARGS_DECL, in a header
// op_host and op_kernel both include), lists the combinations it builds (ASCENDC_TPL_SEL), and
// its tiling function encodes the chosen values as the tiling key (GET_TPL_TILING_KEY,
// ASCENDC_TPL_SEL_PARAM); the kernel entry is a template (`template <uint32_t schMode>
// __global__ __aicore__ void op(...)`) instantiated once per combination, and the launch runs
// the instantiation whose key the tiling set.
//
// Written from the public Ascend C documentation (template argument declaration and selection,
// GET_TPL_TILING_KEY); not vendor code. Encoding, as documented: each parameter takes its
// declared bit width (dtype and format 8, bool 1, uint as declared), holds the position of its
// value in the declared list of legal values, and the fields follow the declaration order
// (the first in the lowest bits). The same header is compiled on both sides, so the key the
// host encodes is the key the kernel-side dispatch (cannbot_tpl_dispatch.h) decodes.
//
// Everything here is constexpr data: nothing runs at load time. Thread-safety: none needed.
#ifndef CANNBOT_TEMPLATE_ARGUMENT_H
#define CANNBOT_TEMPLATE_ARGUMENT_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#define ASCENDC_TPL_DTYPE 0
#define ASCENDC_TPL_FORMAT 1
#define ASCENDC_TPL_UINT 2
#define ASCENDC_TPL_BOOL 3
#define ASCENDC_TPL_KERNEL_TYPE 4

#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
#define ASCENDC_TPL_16_BW 16
#define ASCENDC_TPL_32_BW 32

// How a uint parameter's values are written: ranges (a count, then start/end pairs), a list,
// or both (a count of ranges, the pairs, then listed values).
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2

// Dtype values are the ge::DataType numbers (a tiling function passes a tensor's dtype cast
// to an integer).
#define C_DT_FLOAT 0
#define C_DT_FLOAT16 1
#define C_DT_INT8 2
#define C_DT_INT32 3
#define C_DT_UINT8 4
#define C_DT_INT16 6
#define C_DT_UINT16 7
#define C_DT_UINT32 8
#define C_DT_INT64 9
#define C_DT_UINT64 10
#define C_DT_DOUBLE 11
#define C_DT_BOOL 12
#define C_DT_BF16 27
// Format values are the ge::Format numbers.
#define C_FORMAT_NCHW 0
#define C_FORMAT_NHWC 1
#define C_FORMAT_ND 2
#define C_FORMAT_NC1HWC0 3
#define C_FORMAT_FRACTAL_Z 4
#define C_FORMAT_FRACTAL_NZ 29

// Which kernel a combination builds (vector only, cube only, mixed): one kind on the CPU.
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 2
#define ASCENDC_TPL_MIX_AIC_1_0 3
#define ASCENDC_TPL_MIX_AIC_1_1 4
#define ASCENDC_TPL_MIX_AIC_1_2 5

namespace cannbot_tpl {

inline constexpr size_t kMaxValues = 64;      // legal values of one parameter
inline constexpr size_t kMaxParams = 8;       // parameters of one declaration
inline constexpr size_t kMaxSelections = 64;  // ASCENDC_TPL_ARGS_SEL lists of one ASCENDC_TPL_SEL
// A dtype parameter may name the tensor it follows (ASCENDC_TPL_INPUT(0)): not a value.
inline constexpr uint64_t kTensorTag = 1ull << 48;
// What GET_TPL_TILING_KEY returns for a value its declaration does not list.
inline constexpr uint64_t kBadKey = ~0ull;

inline constexpr bool SameName(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// One declared (or selected) parameter and its legal values, ranges expanded.
struct Param {
  const char* name = "";
  uint32_t kind = ASCENDC_TPL_UINT;
  uint32_t bits = 0;
  uint64_t values[kMaxValues] = {};
  size_t count = 0;
  bool overflow = false;  // more values than cannbot keeps

  constexpr Param() = default;
  constexpr Param(const char* n, uint32_t k, uint32_t b, std::initializer_list<uint64_t> raw)
      : name(n), kind(k), bits(b) {
    const uint64_t* it = raw.begin();
    const uint64_t* end = raw.end();
    if (k == ASCENDC_TPL_UINT && it != end) {
      const uint64_t mode = *it++;
      uint64_t ranges = 0;
      if (mode != ASCENDC_TPL_UI_LIST && it != end) ranges = *it++;
      for (uint64_t r = 0; r < ranges && it != end && it + 1 != end; ++r, it += 2) {
        for (uint64_t v = it[0]; v <= it[1] && !overflow; ++v) Add(v);
      }
      if (mode == ASCENDC_TPL_UI_RANGE) return;
    }
    for (; it != end; ++it) {
      if (*it < kTensorTag) Add(*it);
    }
  }
  constexpr void Add(uint64_t v) {
    if (count < kMaxValues) {
      values[count++] = v;
    } else {
      overflow = true;
    }
  }
  constexpr long Position(uint64_t v) const {
    for (size_t i = 0; i < count; ++i) {
      if (values[i] == v) return static_cast<long>(i);
    }
    return -1;
  }
};

// ASCENDC_TPL_ARGS_DECL's parameters, or one ASCENDC_TPL_ARGS_SEL's.
struct ParamList {
  const char* op = "";
  Param params[kMaxParams] = {};
  size_t count = 0;
  bool overflow = false;

  constexpr ParamList() = default;
  constexpr ParamList(const char* o, std::initializer_list<Param> ps) : op(o) {
    for (const Param& p : ps) {
      if (count == kMaxParams || p.overflow) {
        overflow = true;
      } else {
        params[count++] = p;
      }
    }
  }
  constexpr long IndexOf(const char* name) const {
    for (size_t i = 0; i < count; ++i) {
      if (params[i].kind != ASCENDC_TPL_KERNEL_TYPE && SameName(params[i].name, name)) {
        return static_cast<long>(i);
      }
    }
    return -1;
  }
};

struct Selections {
  ParamList lists[kMaxSelections] = {};
  size_t count = 0;
  bool overflow = false;

  constexpr Selections() = default;
  constexpr Selections(std::initializer_list<ParamList> ls) {
    for (const ParamList& l : ls) {
      if (count == kMaxSelections || l.overflow) {
        overflow = true;
      } else {
        lists[count++] = l;
      }
    }
  }
};

// One combination: a value per declared parameter (kernel-type parameters hold 0).
struct Combo {
  uint64_t v[kMaxParams] = {};
};

// The values a selection allows for declared parameter i: its own list if it names the
// parameter, else every declared value.
inline constexpr const Param& Allowed(const ParamList& decl, const ParamList& sel, size_t i) {
  const long at = sel.IndexOf(decl.params[i].name);
  return at < 0 ? decl.params[i] : sel.params[at];
}

inline constexpr size_t CombosOf(const ParamList& decl, const ParamList& sel) {
  size_t n = 1;
  for (size_t i = 0; i < decl.count; ++i) {
    if (decl.params[i].kind != ASCENDC_TPL_KERNEL_TYPE) n *= Allowed(decl, sel, i).count;
  }
  return n;
}

inline constexpr size_t ComboCount(const ParamList& decl, const Selections& sels) {
  size_t n = 0;
  for (size_t s = 0; s < sels.count; ++s) n += CombosOf(decl, sels.lists[s]);
  return n;
}

inline constexpr Combo ComboAt(const ParamList& decl, const Selections& sels, size_t index) {
  Combo c;
  for (size_t s = 0; s < sels.count; ++s) {
    const size_t n = CombosOf(decl, sels.lists[s]);
    if (index >= n) {
      index -= n;
      continue;
    }
    for (size_t i = 0; i < decl.count; ++i) {
      if (decl.params[i].kind == ASCENDC_TPL_KERNEL_TYPE) continue;
      const Param& allowed = Allowed(decl, sels.lists[s], i);
      c.v[i] = allowed.values[index % allowed.count];
      index /= allowed.count;
    }
    break;
  }
  return c;
}

// The tiling key of `values` (one per declared parameter, kernel types skipped), kBadKey when
// a value is not declared or does not fit its field.
inline constexpr uint64_t KeyOf(const ParamList& decl, const uint64_t* values, size_t n) {
  uint64_t key = 0;
  uint32_t shift = 0;
  size_t next = 0;
  for (size_t i = 0; i < decl.count; ++i) {
    const Param& p = decl.params[i];
    if (p.kind == ASCENDC_TPL_KERNEL_TYPE) continue;
    if (next == n) return kBadKey;
    const long at = p.Position(values[next++]);
    if (at < 0 || (p.bits < 64 && static_cast<uint64_t>(at) >> p.bits != 0) || shift >= 64) {
      return kBadKey;
    }
    key |= static_cast<uint64_t>(at) << shift;
    shift += p.bits;
  }
  return next == n ? key : kBadKey;
}

inline constexpr uint64_t KeyOf(const ParamList& decl, const Combo& c) {
  uint64_t values[kMaxParams] = {};
  size_t n = 0;
  for (size_t i = 0; i < decl.count; ++i) {
    if (decl.params[i].kind != ASCENDC_TPL_KERNEL_TYPE) values[n++] = c.v[i];
  }
  return KeyOf(decl, values, n);
}

template <typename... Values>
inline uint64_t EncodeKey(const ParamList& decl, Values... values) {
  const uint64_t list[] = {static_cast<uint64_t>(values)..., 0};
  return KeyOf(decl, list, sizeof...(Values));
}

}  // namespace cannbot_tpl

#define ASCENDC_TPL_DTYPE_DECL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_DTYPE, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_DECL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_FORMAT, ASCENDC_TPL_8_BW, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_UINT, bw, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_DECL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_BOOL, ASCENDC_TPL_1_BW, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_KERNEL_TYPE, 0, {__VA_ARGS__})

#define ASCENDC_TPL_DTYPE_SEL(x, ...) ::cannbot_tpl::Param(#x, ASCENDC_TPL_DTYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) \
  ::cannbot_tpl::Param(#x, ASCENDC_TPL_DTYPE, 0, {__VA_ARGS__})
#define ASCENDC_TPL_FORMAT_SEL(x, ...) ::cannbot_tpl::Param(#x, ASCENDC_TPL_FORMAT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_UINT_SEL(x, ...) ::cannbot_tpl::Param(#x, ASCENDC_TPL_UINT, 0, {__VA_ARGS__})
#define ASCENDC_TPL_BOOL_SEL(x, ...) ::cannbot_tpl::Param(#x, ASCENDC_TPL_BOOL, 0, {__VA_ARGS__})
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) \
  ::cannbot_tpl::Param("", ASCENDC_TPL_KERNEL_TYPE, 0, {__VA_ARGS__})

#define ASCENDC_TPL_INPUT(i) (::cannbot_tpl::kTensorTag + (i))
#define ASCENDC_TPL_OUTPUT(i) (::cannbot_tpl::kTensorTag * 2 + (i))

// One declaration and one selection per operator, at namespace scope (their names are fixed:
// the kernel-side dispatch and GET_TPL_TILING_KEY find them by name).
#define ASCENDC_TPL_ARGS_DECL(op, ...) \
  inline constexpr ::cannbot_tpl::ParamList cannbot_tpl_declared(#op, {__VA_ARGS__})
#define ASCENDC_TPL_ARGS_SEL(...) ::cannbot_tpl::ParamList("", {__VA_ARGS__})
#define ASCENDC_TPL_SEL(...) \
  inline constexpr ::cannbot_tpl::Selections cannbot_tpl_selected({__VA_ARGS__})

#define GET_TPL_TILING_KEY(...) ::cannbot_tpl::EncodeKey(cannbot_tpl_declared, __VA_ARGS__)
#define ASCENDC_TPL_SEL_PARAM(context, ...) \
  do {                                      \
    (context)->SetTilingKey(GET_TPL_TILING_KEY(__VA_ARGS__)); \
  } while (0)

#endif  // CANNBOT_TEMPLATE_ARGUMENT_H
