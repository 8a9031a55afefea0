// cannbot-recipe
// name: gelu-erfc-as
// op: gelu
// summary: exact-erf GELU as max(x,0) - |x|*erfc(|x|/sqrt2)/2, erfc by Abramowitz-Stegun 7.1.26 (rational poly times exp(-a^2), relative accuracy), masked tail, optional NT stores
// params: NT_STORES=0,1 UNROLL=1,2 RCP_NEWTON=0,1
// ---
// gelu(x) = x * Phi(x) = 0.5 * x * erfc(-x/sqrt2). With a = |x|/sqrt2 and c = erfc(a):
//   x >= 0: x * (1 - c/2)     x < 0: x * c/2     i.e.   y = max(x, 0) - |x| * c/2
// (no 1 + erf cancellation for negative x, no compare or blend for the sign).
// erfc(a) ~ t*(A1 + t*(A2 + t*(A3 + t*(A4 + t*A5)))) * exp(-a*a), t = 1/(1 + P*a)
// (Abramowitz & Stegun 7.1.26, max abs error 1.5e-7; the A_k are halved here so the product
// is c/2 directly). Unlike the pure polynomial of 7.1.28 (gelu-erf-as28, fewer operations),
// the exp factor keeps c accurate in relative terms far into the tail: the choice when a
// tighter tolerance is needed. exp(d), d <= 0: Cody-Waite reduction, a degree-5 polynomial
// fitted by Remez exchange for minimal relative error on |r| <= ln2/2 (<= 3 ulp overall),
// 2^n by scalef (AVX-512) or exponent bits (AVX2, scalar; argument clamped at -87).
// For a >= 8.9, c is set to exactly 0 (erfc(8.9)/2 ~ 4e-36; beyond it poly * exp(-a*a) would
// be subnormal), and |x| is clamped at 16 before anything else: gelu(3e38) = 3e38,
// gelu(-3e38) = 0, gelu(inf) = inf, a*a stays finite. a is computed from max(|x|, 2^-40), so
// a*a never underflows (erfc is 1 there in fp32 either way). No operation produces a
// subnormal number: each would cost Intel cores a microcode assist.
// The tanh form of GELU (off by up to 4.7e-4) is not used.
// Parameters:
//  * NT_STORES: streaming stores for y when it is large (>= 4 MB): skips the
//    read-for-ownership of y; aligned head and masked tail use ordinary stores, sfence at
//    the end. Off by default: no measurable gain for this compute-bound loop on a Zen 4
//    test machine (it pays off in pure copies, see add-stream).
//  * UNROLL: independent vectors per iteration.
//  * RCP_NEWTON: t = rcp14 (AVX-512) / rcp (AVX2) refined by one Newton step instead of a
//    divide. A raw estimate alone would use the whole error budget near x ~ 0.75; refined,
//    its error (~1e-8 relative, AVX2 ~1.4e-7) is negligible.
#ifndef NT_STORES
#define NT_STORES 0
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef RCP_NEWTON
#define RCP_NEWTON 0
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

constexpr int64_t kStreamMinBytes = int64_t{4} << 20;  // streaming stores from 4 MB of y
static_assert(UNROLL >= 1 && UNROLL <= 8, "UNROLL must be 1..8");

// Abramowitz & Stegun 7.1.26, coefficients A_k halved (the product is erfc(a) / 2).
constexpr float kP = 0.3275911f;
constexpr float kA1 = 0.254829592f / 2, kA2 = -0.284496736f / 2, kA3 = 1.421413741f / 2;
constexpr float kA4 = -1.453152027f / 2, kA5 = 1.061405429f / 2;
constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kErfcZeroAt = 8.9f;  // erfc(8.9)/2 ~ 4e-36: exact 0 from here on
constexpr float kMinAbsForA = 9.094947e-13f;  // 2^-40: a*a stays a normal float
constexpr float kMaxAbs = 16.0f;      // |x| clamp: a = 16/sqrt2 > kErfcZeroAt
// exp(d), d <= 0: Cody-Waite reduction; exp(r) ~ E0 + r*(E1 + ... + r*E5) on |r| <= ln2/2
// (minimax for relative error, 7.5e-8 in exact arithmetic).
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kE0 = 1.00000007165f, kE1 = 0.999999691992f, kE2 = 0.499988948515f;
constexpr float kE3 = 0.166675747267f, kE4 = 0.0419153819779f, kE5 = 0.00829765519827f;
constexpr float kExpMinBits = -87.0f;     // 2^n from exponent bits needs n >= -126
// scalef could build subnormal results, but each costs Intel cores a microcode assist.
constexpr float kExpMinScalef = -87.0f;

inline int64_t HeadToAlignment(const float* y, int64_t n) {  // elements before 64 B
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
  return std::min(misaligned == 0 ? int64_t{0} : 16 - misaligned, n);
}

#if defined(__AVX512F__)
inline __m512 ExpNeg16(__m512 d) {  // d <= 0
  d = _mm512_max_ps(d, _mm512_set1_ps(kExpMinScalef));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(d, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), d);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kE5), r, _mm512_set1_ps(kE4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE0));
  return _mm512_scalef_ps(p, n);
}

inline __m512 Gelu16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // |x| clamped at 16 (a <= 11.3, beyond the point where c is 0): keeps inf out of a*a and
  // out of the final product for any input.
  const __m512 ax = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(kMaxAbs));
  const __m512 a = _mm512_mul_ps(_mm512_max_ps(ax, _mm512_set1_ps(kMinAbsForA)),
                                 _mm512_set1_ps(kInvSqrt2));
  const __m512 den = _mm512_fmadd_ps(_mm512_set1_ps(kP), a, one);
#if RCP_NEWTON
  __m512 t = _mm512_rcp14_ps(den);
  t = _mm512_mul_ps(t, _mm512_fnmadd_ps(den, t, _mm512_set1_ps(2.0f)));
#else
  const __m512 t = _mm512_div_ps(one, den);
#endif
  __m512 poly = _mm512_fmadd_ps(_mm512_set1_ps(kA5), t, _mm512_set1_ps(kA4));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(kA3));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(kA2));
  poly = _mm512_fmadd_ps(poly, t, _mm512_set1_ps(kA1));
  poly = _mm512_mul_ps(poly, t);
  const __mmask16 small = _mm512_cmp_ps_mask(a, _mm512_set1_ps(kErfcZeroAt), _CMP_LT_OQ);
  const __m512 e = ExpNeg16(_mm512_fnmadd_ps(a, a, _mm512_setzero_ps()));
  const __m512 hc = _mm512_maskz_mul_ps(small, poly, e);  // erfc(a)/2, 0 if a >= 10
  return _mm512_fnmadd_ps(ax, hc, _mm512_max_ps(x, _mm512_setzero_ps()));
}

template <bool kStream>
void GeluBody(const float* x, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 16 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m512 v = Gelu16(_mm512_loadu_ps(x + i + 16 * u));
      if constexpr (kStream) _mm512_stream_ps(y + i + 16 * u, v);
      else _mm512_storeu_ps(y + i + 16 * u, v);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 v = Gelu16(_mm512_loadu_ps(x + i));
    if constexpr (kStream) _mm512_stream_ps(y + i, v);
    else _mm512_storeu_ps(y + i, v);
  }
  if (i < n) {  // masked tail: lanes past n are neither read nor written
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, Gelu16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256 ExpNeg8(__m256 d) {  // d <= 0
  d = _mm256_max_ps(d, _mm256_set1_ps(kExpMinBits));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), d);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kE5), r, _mm256_set1_ps(kE4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE0));
  const __m256i bits = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

inline __m256 Gelu8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 ax = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x),
                                  _mm256_set1_ps(kMaxAbs));
  const __m256 a = _mm256_mul_ps(_mm256_max_ps(ax, _mm256_set1_ps(kMinAbsForA)),
                                 _mm256_set1_ps(kInvSqrt2));
  const __m256 den = _mm256_fmadd_ps(_mm256_set1_ps(kP), a, one);
#if RCP_NEWTON
  __m256 t = _mm256_rcp_ps(den);
  t = _mm256_mul_ps(t, _mm256_fnmadd_ps(den, t, _mm256_set1_ps(2.0f)));
#else
  const __m256 t = _mm256_div_ps(one, den);
#endif
  __m256 poly = _mm256_fmadd_ps(_mm256_set1_ps(kA5), t, _mm256_set1_ps(kA4));
  poly = _mm256_fmadd_ps(poly, t, _mm256_set1_ps(kA3));
  poly = _mm256_fmadd_ps(poly, t, _mm256_set1_ps(kA2));
  poly = _mm256_fmadd_ps(poly, t, _mm256_set1_ps(kA1));
  poly = _mm256_mul_ps(poly, t);
  const __m256 e = ExpNeg8(_mm256_fnmadd_ps(a, a, _mm256_setzero_ps()));
  const __m256 small = _mm256_cmp_ps(a, _mm256_set1_ps(kErfcZeroAt), _CMP_LT_OQ);
  // erfc(a)/2, 0 if a >= 8.9: poly is cleared first, so no lane computes a subnormal.
  const __m256 hc = _mm256_mul_ps(_mm256_and_ps(poly, small), e);
  return _mm256_fnmadd_ps(ax, hc, _mm256_max_ps(x, _mm256_setzero_ps()));
}

template <bool kStream>
void GeluBody(const float* x, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 8 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m256 v = Gelu8(_mm256_loadu_ps(x + i + 8 * u));
      if constexpr (kStream) _mm256_stream_ps(y + i + 8 * u, v);
      else _mm256_storeu_ps(y + i + 8 * u, v);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = Gelu8(_mm256_loadu_ps(x + i));
    if constexpr (kStream) _mm256_stream_ps(y + i, v);
    else _mm256_storeu_ps(y + i, v);
  }
  if (i < n) {  // lanes [0, n - i) via maskload/maskstore, same formula as the body
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(y + i, m, Gelu8(_mm256_maskload_ps(x + i, m)));
  }
}
#else
inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
// max(x, 0) without a float compare: clear x when its sign bit is set (-0 and negatives).
inline float PositivePart(float x) {
  return FromBits(Bits(x) & ~(0u - (Bits(x) >> 31)));
}

// Same math, branch-free (integer min and masks, truncating conversion) so GCC can
// vectorise the loop.
inline float GeluScalar(float x) {
  const float ax = FromBits(std::min(Bits(std::fabs(x)), Bits(kMaxAbs)));  // non-negative
  const float a = FromBits(std::max(Bits(ax), Bits(kMinAbsForA))) * kInvSqrt2;
  const float t = 1.0f / (1.0f + kP * a);
  const float poly = t * (kA1 + t * (kA2 + t * (kA3 + t * (kA4 + t * kA5))));
  // exp(-a*a) with the argument clamped to [-87, 0] (min of the bits of non-negatives).
  const float d = -FromBits(std::min(Bits(a * a), Bits(-kExpMinBits)));
  const int32_t ni = static_cast<int32_t>(d * kLog2e - 0.5f);  // d <= 0: round to nearest
  const float n = static_cast<float>(ni);
  float r = d - n * kLn2Hi;
  r = r - n * kLn2Lo;
  const float p = kE0 + r * (kE1 + r * (kE2 + r * (kE3 + r * (kE4 + r * kE5))));
  const float e = p * FromBits(static_cast<uint32_t>(ni + 127) << 23);
  const uint32_t keep = -static_cast<uint32_t>(Bits(a) < Bits(kErfcZeroAt));
  const float hc = FromBits(Bits(poly) & keep) * e;  // erfc(a)/2, 0 for a >= 8.9
  return PositivePart(x) - ax * hc;
}
#endif

}  // namespace

extern "C" void gelu(const float* x, float* y, int64_t n) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (NT_STORES && n * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    const int64_t head = HeadToAlignment(y, n);  // 0 when y is 64-byte aligned (the ABI)
    GeluBody<false>(x, y, 0, head);
    GeluBody<true>(x, y, head, n);
    _mm_sfence();
  } else {
    GeluBody<false>(x, y, 0, n);
  }
#else
  for (int64_t i = 0; i < n; ++i) y[i] = GeluScalar(x[i]);
#endif
}
