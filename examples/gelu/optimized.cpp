// What `cannbot suggest examples/gelu/naive.cpp --op gelu` found offline on an AVX-512
// machine (recipe gelu-erf-as28 (NT_STORES=0 UNROLL=1 RCP_NEWTON=0)),
// validated at 55.5x the naive kernel.
// instantiated from recipe gelu-erf-as28: NT_STORES=0 UNROLL=1 RCP_NEWTON=0
#define NT_STORES 0
#define UNROLL 1
#define RCP_NEWTON 0
// cannbot-recipe
// name: gelu-erf-as28
// op: gelu
// summary: exact-erf GELU as max(x,0) - |x|*erfc(|x|/sqrt2)/2, erfc by Abramowitz-Stegun 7.1.28 (6 FMAs, 4 squarings, 1 divide, no exp), masked tail, optional NT stores and rcp+Newton
// params: NT_STORES=0,1 UNROLL=1,2 RCP_NEWTON=0,1
// ---
// gelu(x) = x * Phi(x) = 0.5 * x * erfc(-x/sqrt2). With c = erfc(|x|/sqrt2):
//   x >= 0: x * (1 - c/2)     x < 0: x * c/2     i.e.   y = max(x, 0) - |x| * c/2
// (no 1 + erf cancellation for negative x, no compare or blend).
// Abramowitz & Stegun 7.1.28: erfc(a) ~ 1 / (1 + C1 a + ... + C6 a^6)^16 for a >= 0, max abs
// error 3e-7 (2.6e-7 measured against a high-precision erfc). With a = |x|/sqrt2 folded into
// the coefficients (D_k = C_k / sqrt2^k, a polynomial in |x|), the GELU error |x| * err / 2
// stays below 5e-7 (5% of the 1e-5 tolerance); the fp32 16th power (four squarings) adds
// ~2e-6 relative on c, at most ~4e-7 absolute. About 15 vector operations per 16 values
// against ~30 for erfc = poly(t) * exp(-a^2) (A&S 7.1.26, see gelu-erfc-as): this kernel
// is compute-bound about as much as memory-bound, so the operation count shows directly.
// Saturation: |x| is clamped to 8.5 (a ~ 6: erfc(6) ~ 2e-17, and p^16 ~ 3e15 stays finite,
// so no inf ever reaches the divide or the Newton step). Beyond the clamp the correction
// term is at most 8.5 * 2e-16: gelu(3e38) = 3e38, gelu(-3e38) ~ -1e-15 (reference -0),
// gelu(-0) = 0. The tanh form of GELU (off by up to 4.7e-4) is not used.
// Parameters:
//  * NT_STORES: streaming stores for y when it is large (>= 4 MB): skips the
//    read-for-ownership of y; aligned head and masked tail use ordinary stores, sfence at
//    the end. Off by default: no measurable gain for this compute-bound loop on a Zen 4
//    test machine (it pays off in pure copies, see add-stream).
//  * UNROLL: independent vectors per iteration.
//  * RCP_NEWTON: 1/p^16 as rcp14 (AVX-512) / rcp (AVX2) plus one Newton step instead of a
//    divide (refined error ~1e-8 relative, AVX2 ~1.4e-7). Off by default: ~12% slower
//    than vdivps in cache on Zen 4.
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

// Abramowitz & Stegun 7.1.28 coefficients C_k divided by sqrt(2)^k: the polynomial takes |x|.
constexpr float kD1 = 0.049867346966790536f, kD2 = 0.021141006150000002f;
constexpr float kD3 = 0.0032776263241471692f, kD4 = 3.800357500000001e-05f;
constexpr float kD5 = 4.889063564344405e-05f, kD6 = 5.3829750000000024e-06f;
constexpr float kMaxAbs = 8.5f;  // |x|/sqrt2 ~ 6: erfc ~ 2e-17; p^16 ~ 3e15 is finite

inline int64_t HeadToAlignment(const float* y, int64_t n) {  // elements before 64 B
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
  return std::min(misaligned == 0 ? int64_t{0} : 16 - misaligned, n);
}

#if defined(__AVX512F__)
inline __m512 Gelu16(__m512 x) {
  const __m512 xa = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(kMaxAbs));
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kD6), xa, _mm512_set1_ps(kD5));
  p = _mm512_fmadd_ps(p, xa, _mm512_set1_ps(kD4));
  p = _mm512_fmadd_ps(p, xa, _mm512_set1_ps(kD3));
  p = _mm512_fmadd_ps(p, xa, _mm512_set1_ps(kD2));
  p = _mm512_fmadd_ps(p, xa, _mm512_set1_ps(kD1));
  p = _mm512_fmadd_ps(p, xa, _mm512_set1_ps(1.0f));
  p = _mm512_mul_ps(p, p);
  p = _mm512_mul_ps(p, p);
  p = _mm512_mul_ps(p, p);
  p = _mm512_mul_ps(p, p);  // p^16 in [1, 3e15]
  const __m512 half = _mm512_set1_ps(0.5f);
#if RCP_NEWTON
  const __m512 r = _mm512_rcp14_ps(p);
  const __m512 hc = _mm512_mul_ps(_mm512_mul_ps(r, half),
                                  _mm512_fnmadd_ps(p, r, _mm512_set1_ps(2.0f)));
#else
  const __m512 hc = _mm512_div_ps(half, p);  // erfc(|x|/sqrt2) / 2
#endif
  return _mm512_fnmadd_ps(xa, hc, _mm512_max_ps(x, _mm512_setzero_ps()));
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
inline __m256 Gelu8(__m256 x) {
  const __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 xa = _mm256_min_ps(ax, _mm256_set1_ps(kMaxAbs));
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kD6), xa, _mm256_set1_ps(kD5));
  p = _mm256_fmadd_ps(p, xa, _mm256_set1_ps(kD4));
  p = _mm256_fmadd_ps(p, xa, _mm256_set1_ps(kD3));
  p = _mm256_fmadd_ps(p, xa, _mm256_set1_ps(kD2));
  p = _mm256_fmadd_ps(p, xa, _mm256_set1_ps(kD1));
  p = _mm256_fmadd_ps(p, xa, _mm256_set1_ps(1.0f));
  p = _mm256_mul_ps(p, p);
  p = _mm256_mul_ps(p, p);
  p = _mm256_mul_ps(p, p);
  p = _mm256_mul_ps(p, p);
  const __m256 half = _mm256_set1_ps(0.5f);
#if RCP_NEWTON
  const __m256 r = _mm256_rcp_ps(p);
  const __m256 hc = _mm256_mul_ps(_mm256_mul_ps(r, half),
                                  _mm256_fnmadd_ps(p, r, _mm256_set1_ps(2.0f)));
#else
  const __m256 hc = _mm256_div_ps(half, p);
#endif
  return _mm256_fnmadd_ps(xa, hc, _mm256_max_ps(x, _mm256_setzero_ps()));
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

// Same math, branch-free so GCC vectorises the loop (float compares are not if-converted
// under the default -ftrapping-math: min/max on the bit patterns instead).
inline float GeluScalar(float x) {
  const float xa = FromBits(std::min(Bits(std::fabs(x)), Bits(kMaxAbs)));  // non-negative
  float p = 1.0f + xa * (kD1 + xa * (kD2 + xa * (kD3 + xa * (kD4 + xa * (kD5 + xa * kD6)))));
  p = p * p; p = p * p; p = p * p; p = p * p;
  return PositivePart(x) - xa * (0.5f / p);
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
