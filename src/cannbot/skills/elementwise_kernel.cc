#include "cannbot/skills/elementwise_kernel.h"

#include <set>
#include <vector>

#include "cannbot/ops/dtype_values.h"


namespace cannbot::skills {
namespace {

// The C library spellings of the vector math, for Math::kLibm.
constexpr const char* kLibmMath = R"(#include <cmath>
static inline float cb_exp(float x) { return std::exp(x); }
static inline float cb_expm1(float x) { return std::expm1(x); }
static inline float cb_log(float x) { return std::log(x); }
static inline float cb_log1p(float x) { return std::log1p(x); }
static inline float cb_tanh(float x) { return std::tanh(x); }
static inline float cb_erf(float x) { return std::erf(x); }
static inline float cb_sqrt(float x) { return std::sqrt(x); }
static inline float cb_rsqrt(float x) { return 1.0f / std::sqrt(x); }
static inline float cb_abs(float x) { return std::fabs(x); }
static inline float cb_min(float a, float b) { return a < b ? a : b; }
static inline float cb_max(float a, float b) { return a > b ? a : b; }
static inline float cb_pow(float x, float p) { return std::pow(x, p); }
)";

// 16-bit elements travel as their bits and are converted in integer arithmetic, which the
// compiler vectorises (GCC 12 keeps _Float16 loops scalar without AVX512-FP16): exact widening,
// nearest-even narrowing, infinities and NaN kept, as the reference's rounding does.
constexpr const char* kConversions = R"(typedef uint16_t ew_u16 __attribute__((may_alias));
static inline float ew_from_bits(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
static inline uint32_t ew_to_bits(float f) { uint32_t u; __builtin_memcpy(&u, &f, 4); return u; }
static inline float ew_half_to_float(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, em = h & 0x7fffu;
  // normal, inf, NaN: rebias the exponent by 127 - 15 (twice for inf and NaN, to reach 255)
  const uint32_t normal = (em << 13) + 0x38000000u + (em >= 0x7c00u ? 0x38000000u : 0u);
  // subnormal and zero: em * 2^-24, exact in float
  const float subnormal = static_cast<float>(static_cast<int32_t>(em)) * 5.9604644775390625e-8f;
  return ew_from_bits(sign | (em < 0x400u ? ew_to_bits(subnormal) : normal));
}
static inline ew_u16 ew_float_to_half(float v) {
  const uint32_t f = ew_to_bits(v), sign = (f >> 16) & 0x8000u, a = f & 0x7fffffffu;
  // normal halves: drop 13 mantissa bits rounding to nearest even, rebias
  const uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
  // below 2^-14: adding 0.5 leaves |v| in units of 2^-24, rounded to nearest even
  const uint32_t subnormal = ew_to_bits(ew_from_bits(a) + 0.5f) - 0x3f000000u;
  uint32_t h = a < 0x38800000u ? subnormal : normal;
  h = a >= 0x477ff000u ? 0x7c00u : h;  // 65520 and above round to infinity
  h = a > 0x7f800000u ? 0x7e00u : h;   // NaN stays NaN
  return static_cast<ew_u16>(sign | h);
}
static inline float ew_bf16_to_float(uint32_t b) { return ew_from_bits(b << 16); }
static inline ew_u16 ew_float_to_bf16(float v) {
  const uint32_t u = ew_to_bits(v);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return static_cast<ew_u16>((u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded);
}
)";

// The vector path works on runs of contiguous outputs, a tile at a time: 16-bit inputs are
// widened into float tiles (F16C's vcvtph2ps where the CPU has it: exact), the element loop is
// pure float (so it vectorises whatever the dtypes), and the output tile is narrowed (vcvtps2ph
// rounds to nearest even, as the reference does) and copied out, with non-temporal stores when
// the output is large: a plain store first reads the line it writes, a streaming store does
// not, so a memory-bound op moves a third less. The first tile of a run ends on the output's
// 64-byte boundary, so the streaming stores of the others are aligned.
constexpr const char* kTiles = R"(#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
enum { EW_TILE = 512 };
static inline void ew_widen_half(const ew_u16* s, float* d, int64_t n) {
  int64_t j = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; j + 8 <= n; j += 8) {
    _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j))));
  }
#endif
  for (; j < n; ++j) d[j] = ew_half_to_float(s[j]);
}
static inline void ew_widen_bf16(const ew_u16* s, float* d, int64_t n) {
  for (int64_t j = 0; j < n; ++j) d[j] = ew_bf16_to_float(s[j]);
}
static inline void ew_narrow_half(const float* s, ew_u16* d, int64_t n) {
  int64_t j = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; j + 8 <= n; j += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + j),
                     _mm256_cvtps_ph(_mm256_loadu_ps(s + j), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
#endif
  for (; j < n; ++j) d[j] = ew_float_to_half(s[j]);
}
static inline void ew_narrow_bf16(const float* s, ew_u16* d, int64_t n) {
  for (int64_t j = 0; j < n; ++j) d[j] = ew_float_to_bf16(s[j]);
}
// Copies a finished tile out; streaming (non-temporal) 32-byte stores where `stream` is set and
// the destination is aligned, ordinary ones otherwise.
static inline void ew_copy_out(const void* src, void* dst, int64_t bytes, bool stream) {
  int64_t b = 0;
#if defined(__AVX__)
  if (stream && reinterpret_cast<uintptr_t>(dst) % 32 == 0) {
    const char* s = static_cast<const char*>(src);
    char* d = static_cast<char*>(dst);
    for (; b + 32 <= bytes; b += 32) {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + b),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + b)));
    }
  }
#endif
  __builtin_memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b,
                   static_cast<size_t>(bytes - b));
}
static inline void ew_stream_fence(bool stream) {
#if defined(__SSE2__)
  if (stream) _mm_sfence();
#endif
  (void)stream;
}
// Elements in the run's next tile: up to the output's 64-byte boundary first, then EW_TILE.
static inline int64_t ew_tile_length(const void* out, int64_t element_bytes, int64_t left) {
  const int64_t head = static_cast<int64_t>((64 - reinterpret_cast<uintptr_t>(out) % 64) % 64);
  int64_t n = head % element_bytes == 0 && head > 0 ? head / element_bytes : EW_TILE;
  return n < left ? n : left;
}
)";

using ops::ExtentInC;

struct Parts {
  std::vector<const ops::Param*> inputs, scalars;
  const ops::Param* output = nullptr;
};

Parts Split(const ops::OpSpec& op) {
  Parts parts;
  for (const ops::Param& p : op.params) {
    if (p.kind == ops::ParamKind::kInput) parts.inputs.push_back(&p);
    if (p.kind == ops::ParamKind::kScalar) parts.scalars.push_back(&p);
    if (p.kind == ops::ParamKind::kOutput) parts.output = &p;
  }
  return parts;
}

// static inline float ew_element(float x, float alpha) { return (EXPR); }
std::string ElementFunction(const ops::OpSpec& op, const Parts& parts) {
  std::string args;
  for (const ops::Param* p : parts.inputs) args += (args.empty() ? "" : ", ") + ("float " + p->name);
  for (const ops::Param* p : parts.scalars) args += (args.empty() ? "" : ", ") + ("float " + p->name);
  return "// The op's element, from its spec: " + op.elementwise + "\n"
         "static inline float ew_element(" + args + ") {\n  return (" + op.elementwise +
         ");\n}\n";
}

// An input element as a float: `name[index]`, or its bits converted.
std::string Load(const ops::Param& p, const std::string& index) {
  switch (p.dtype) {
    case ops::DType::kF16: return "ew_half_to_float(" + p.name + "_bits[" + index + "])";
    case ops::DType::kBF16: return "ew_bf16_to_float(" + p.name + "_bits[" + index + "])";
    default: return p.name + "[" + index + "]";
  }
}

// y[i] = ew_element(inputs..., scalars), rounded to the output's dtype; `index_of(input)`
// gives each input's index expression.
template <typename IndexOf>
std::string Store(const Parts& parts, IndexOf index_of) {
  std::string call = "ew_element(";
  bool first = true;
  for (const ops::Param* p : parts.inputs) {
    call += (first ? "" : ", ") + Load(*p, index_of(*p));
    first = false;
  }
  for (const ops::Param* p : parts.scalars) {
    call += (first ? "" : ", ") + p->name;
    first = false;
  }
  call += ")";
  const std::string& y = parts.output->name;
  switch (parts.output->dtype) {
    case ops::DType::kF16: return y + "_bits[i] = ew_float_to_half(" + call + ");";
    case ops::DType::kBF16: return y + "_bits[i] = ew_float_to_bf16(" + call + ");";
    default: return y + "[i] = " + call + ";";
  }
}

// The 16-bit tensors' bit views: `const ew_u16* x_bits = ...`.
std::string BitViews(const ops::OpSpec& op) {
  std::string views;
  for (const ops::Param& p : op.params) {
    if (!p.IsTensor() || !ops::DTypeIsSixteenBitFloat(p.dtype)) continue;
    const bool in = p.kind == ops::ParamKind::kInput;
    views += std::string("  ") + (in ? "const " : "") + "ew_u16* " + p.name + "_bits = reinterpret_cast<" +
             (in ? "const " : "") + "ew_u16*>(" + p.name + ");\n";
  }
  return views;
}

// One broadcast rule shared by every broadcast input (inner size, extent), or none.
bool SharedBroadcast(const ops::OpSpec& op, const Parts& parts, std::string* inner,
                     std::string* period) {
  for (const ops::Param* p : parts.inputs) {
    auto b = op.broadcast.find(p->name);
    if (b == op.broadcast.end()) continue;
    if (!inner->empty() && (*inner != b->second || *period != p->extent)) return false;
    *inner = b->second;
    *period = p->extent;
  }
  return true;
}

std::string Loops(const ops::OpSpec& op, const Parts& parts, const std::string& unroll) {
  const std::string hint = "#pragma GCC ivdep\n" + (unroll.empty() ? std::string() :
                           "EW_UNROLL(" + unroll + ")\n");
  const std::string total = BitViews(op) + "  const int64_t total = " +
                            ExtentInC(parts.output->extent) + ";\n";
  std::string inner, period;
  if (op.broadcast.empty() || !SharedBroadcast(op, parts, &inner, &period)) {
    // Same-shape inputs (or broadcast rules that differ: each input's index computed).
    auto index = [&](const ops::Param& p) -> std::string {
      auto b = op.broadcast.find(p.name);
      if (b == op.broadcast.end()) return "i";
      return "(i / " + ExtentInC(b->second) + ") % " + ExtentInC(p.extent);
    };
    return total + hint + "  for (int64_t i = 0; i < total; ++i) {\n    " +
           Store(parts, index) + "\n  }\n";
  }
  // A broadcast input's element for output i = (o * period + m) * inner + k is m.
  auto index = [&](const ops::Param& p) { return op.broadcast.count(p.name) ? "m" : "i"; };
  return total + "  const int64_t inner = " + ExtentInC(inner) + ", period = " +
         ExtentInC(period) + ";\n"
         "  const int64_t outer = total / (inner * period);\n"
         "  if (inner == 1) {  // [outer, period] op [period]: the inner loop runs along a row\n"
         "    for (int64_t o = 0; o < outer; ++o) {\n"
         "      const int64_t base = o * period;\n" + hint +
         "      for (int64_t m = 0; m < period; ++m) {\n"
         "        const int64_t i = base + m;\n        " + Store(parts, index) + "\n"
         "      }\n    }\n    return;\n  }\n"
         "  // [outer, period, inner] op [period]: one broadcast value per inner block\n"
         "  for (int64_t o = 0; o < outer; ++o) {\n"
         "    for (int64_t m = 0; m < period; ++m) {\n"
         "      const int64_t base = (o * period + m) * inner;\n" + hint +
         "      for (int64_t k = 0; k < inner; ++k) {\n"
         "        const int64_t i = base + k;\n        " + Store(parts, index) + "\n"
         "      }\n    }\n  }\n";
}

bool SixteenBit(const ops::Param& p) { return ops::DTypeIsSixteenBitFloat(p.dtype); }

// A tensor as the kernel's entry sees it: its bit view for 16-bit dtypes (BitViews).
std::string EntryName(const ops::Param& p) { return SixteenBit(p) ? p.name + "_bits" : p.name; }

// The run's pointer parameter for a tensor: its bits for 16-bit dtypes, else its C type.
std::string RunPointer(const ops::Param& p) {
  const bool in = p.kind == ops::ParamKind::kInput;
  const std::string element = SixteenBit(p) ? "ew_u16" : ops::DTypeCType(p.dtype);
  return std::string(in ? "const " : "") + element + "* " + p.name;
}

// static inline void NAME(inputs (run pointers, or float values for those in `values`), out,
// int64_t len, scalars, bool stream): one run of `len` contiguous outputs, a tile at a time.
std::string RunFunction(const std::string& name, const Parts& parts,
                        const std::set<std::string>& values, const std::string& unroll) {
  std::string params, tiles, widen, args;
  for (const ops::Param* p : parts.inputs) {
    const bool value = values.count(p->name) > 0;
    params += (value ? "float " + p->name : RunPointer(*p)) + ", ";
    if (!args.empty()) args += ", ";
    if (value) {
      args += p->name;
    } else if (SixteenBit(*p)) {
      tiles += "  float " + p->name + "_t[EW_TILE];\n";
      widen += "    ew_widen_" + SixteenBitSuffix(p->dtype) + "(" + p->name + " + t, " + p->name +
               "_t, n);\n";
      args += p->name + "_t[j]";
    } else {
      widen += "    const " + std::string(ops::DTypeCType(p->dtype)) + "* __restrict__ " +
               p->name + "_p = " + p->name + " + t;\n";
      args += p->name + "_p[j]";
    }
  }
  for (const ops::Param* p : parts.scalars) args += ", " + p->name;
  std::string scalars;
  for (const ops::Param* p : parts.scalars) scalars += ", float " + p->name;
  const ops::Param& y = *parts.output;  // float, half or bfloat16 (ElementwiseKernel checks)
  std::string out = "  float " + y.name + "_t[EW_TILE];\n";
  std::string narrow = "    ew_copy_out(" + y.name + "_t, " + y.name + " + t, n * 4, stream);\n";
  if (SixteenBit(y)) {
    out += "  ew_u16 " + y.name + "_n[EW_TILE];\n";
    narrow = "    ew_narrow_" + SixteenBitSuffix(y.dtype) + "(" + y.name + "_t, " + y.name +
             "_n, n);\n" +
             "    ew_copy_out(" + y.name + "_n, " + y.name + " + t, n * 2, stream);\n";
  }
  return "static inline void " + name + "(" + params + RunPointer(y) + ", int64_t len" + scalars +
         ", bool stream) {\n" + tiles + out +
         "  for (int64_t t = 0; t < len;) {\n"
         "    const int64_t n = ew_tile_length(" + y.name + " + t, sizeof(*" + y.name +
         "), len - t);\n" + widen + "#pragma GCC ivdep\n" +
         (unroll.empty() ? std::string() : "EW_UNROLL(" + unroll + ")\n") +
         "    for (int64_t j = 0; j < n; ++j) " + y.name + "_t[j] = ew_element(" + args + ");\n" +
         narrow + "    t += n;\n  }\n}\n";
}

// A call of a run function: `name(a + offset, ..., y + offset, len, scalars, stream);` where a
// broadcast input is passed by `bcast(input)` (an offset pointer or a value).
template <typename Bcast>
std::string RunCall(const std::string& name, const ops::OpSpec& op, const Parts& parts,
                    const std::string& offset, const std::string& len, Bcast bcast) {
  std::string call = name + "(";
  for (const ops::Param* p : parts.inputs) {
    call += (op.broadcast.count(p->name) ? bcast(*p) : EntryName(*p) + " + " + offset) + ", ";
  }
  call += EntryName(*parts.output) + " + " + offset + ", " + len;
  for (const ops::Param* p : parts.scalars) call += ", " + p->name;
  return call + ", stream);";
}

// The vector path's helpers and entry: runs over the output, by the broadcast rule shared by
// every broadcast input (`inner`, `period`: SharedBroadcast).
std::string VectorKernel(const ops::OpSpec& op, const Parts& parts, const std::string& inner,
                         const std::string& period, const std::string& unroll,
                         const std::string& stream) {
  const ops::Param& y = *parts.output;
  std::string functions = RunFunction("ew_run", parts, {}, unroll);
  std::string body = BitViews(op) + "  const int64_t total = " + ExtentInC(y.extent) + ";\n" +
                     "  // Streaming stores from 4 MB of output: smaller outputs stay in cache for "
                     "their consumer.\n  const bool stream = (" + stream + ") && total * "
                     "static_cast<int64_t>(sizeof(*" + y.name + ")) >= (int64_t{4} << 20);\n";
  if (op.broadcast.empty()) {
    body += "  " + RunCall("ew_run", op, parts, "0", "total", EntryName) + "\n";
  } else {
    std::set<std::string> values;
    for (const auto& [name, rule] : op.broadcast) values.insert(name);
    functions += RunFunction("ew_run_block", parts, values, unroll);
    auto value = [](const ops::Param& p) { return Load(p, "m"); };
    body += "  const int64_t inner = " + ExtentInC(inner) + ", period = " + ExtentInC(period) +
            ";\n  const int64_t outer = total / (inner * period);\n"
            "  if (inner == 1) {  // [outer, period] op [period]: a run is a row\n"
            "    for (int64_t o = 0; o < outer; ++o) {\n      " +
            RunCall("ew_run", op, parts, "o * period", "period", EntryName) +
            "\n    }\n  } else {  // [outer, period, inner] op [period]: a run is an inner block\n"
            "    for (int64_t o = 0; o < outer; ++o) {\n"
            "      for (int64_t m = 0; m < period; ++m) {\n        " +
            RunCall("ew_run_block", op, parts, "(o * period + m) * inner", "inner", value) +
            "\n      }\n    }\n  }\n";
  }
  body += "  ew_stream_fence(stream);\n";
  return functions + "\nextern \"C\" " + op.CSignature() + " {\n" + body + "}\n";
}

}  // namespace

std::string GeneratedKernelSupport() {
  return std::string(kConversions) + kTiles;
}

std::string SixteenBitSuffix(ops::DType dtype) {
  return dtype == ops::DType::kF16 ? "half" : "bf16";
}

Result<std::string> ElementwiseKernel(const ops::OpSpec& op, Math math,
                                      const std::string& unroll_macro,
                                      const std::string& stream_macro) {
  if (op.elementwise.empty()) {
    return Status::InvalidArgument("op " + op.name + " has no `elementwise` expression");
  }
  const Parts parts = Split(op);
  if (parts.output == nullptr || parts.inputs.empty()) {
    return Status::InvalidArgument("op " + op.name + " is not an elementwise op");
  }
  std::string out = "// cannbot: the elementwise kernel of op '" + op.name +
                    "', generated from its spec.\n#include <cstdint>\n#include <cstring>\n"
                    // Selects (`?:`) vectorise only when FP exceptions need not be kept in
                    // order; nothing observes them (the runner checks results, not flags).
                    "#pragma GCC optimize(\"no-trapping-math\")\n"
                    "#define EW_PRAGMA_(x) _Pragma(#x)\n"
                    "#define EW_UNROLL(n) EW_PRAGMA_(GCC unroll n)\n";
  out += math == Math::kVector ? std::string(VectorMathSource()) : std::string(kLibmMath);
  out += ops::kExtentFunctionsInC;
  out += kConversions;
  out += ElementFunction(op, parts);
  std::string inner, period;
  const bool float_output = parts.output->dtype == ops::DType::kF32 || SixteenBit(*parts.output);
  if (math == Math::kLibm || !float_output || !SharedBroadcast(op, parts, &inner, &period)) {
    // The plain loop (the baseline a developer would write), and broadcast rules that differ
    // between inputs (each input's index computed per element).
    out += "\nextern \"C\" " + op.CSignature() + " {\n" + Loops(op, parts, unroll_macro) + "}\n";
    return out;
  }
  out += kTiles;
  out += VectorKernel(op, parts, inner, period, unroll_macro,
                      stream_macro.empty() ? "0" : stream_macro);
  return out;
}

}  // namespace cannbot::skills
