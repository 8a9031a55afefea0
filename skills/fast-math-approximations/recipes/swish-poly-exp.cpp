// cannbot-recipe
// name: swish-poly-exp
// op: swish
// summary: one pass, y = max(x,0) - min(|x|,87)*t/(1+t) with t = exp(-|x|) from a degree-5 minimax polynomial, no overflow, masked tail, optional NT stores and rcp+Newton
// params: NT_STORES=0,1 UNROLL=1,2 RCP_NEWTON=0,1
// ---
// swish(x) = x / (1 + exp(-x)). With a = -min(|x|, 87) and t = exp(a) in (0, 1]:
//   y = max(x, 0) + a * t/(1 + t)
// which is x/(1+t) for x >= 0 and x*t/(1+t) for x < 0 (sign-split sigmoid: exp never sees a
// positive argument, so it never overflows). Beyond |x| = 87 the clamped a makes the second
// term at most 87 * 1.6e-38: y = x for large positive x (also 3e38) and ~-1e-36 (the
// reference: -0 or a denormal) for large negative x; no compare or blend is needed.
// exp(a), a in [-87, 0]: n = round(a*log2 e), r = a - n*ln2 (Cody-Waite hi/lo split, so
// |r| <= ln2/2), p(r) = degree-5 polynomial fitted by Remez exchange for minimal relative
// error on [-ln2/2, ln2/2] (7.5e-8 in exact arithmetic, at most 3 ulp = 2e-7 with the fp32
// reduction, checked against double exp at every float in [-87, 0]); 2^n by scalef
// (AVX-512) or exponent bits (AVX2, scalar; n >= -126 holds). The swish error is then at
// most ~0.22 * 2e-7 absolute, 1% of the 1e-5 tolerance. Five FMAs instead of the eight of
// a Cephes-style 1 + r + r^2*P(r): this kernel is compute-bound about as much as it is
// memory-bound (~17 vector operations per 16 values), so every operation shows.
// Parameters:
//  * NT_STORES: streaming stores for y when it is large (>= 4 MB), skipping the
//    read-for-ownership of y; the head up to a 64-byte boundary and the tail use ordinary
//    masked stores, and an sfence closes the call. Off by default: it measured 0.93-0.97x
//    of ordinary stores on a Zen 4 test machine (it pays off in pure copies, see add-stream).
//  * UNROLL: independent vectors per iteration (more exp chains in flight).
//  * RCP_NEWTON: 1/(1+t) as rcp14 (AVX-512) / rcp (AVX2) plus one Newton step instead of an
//    exact divide; 1+t is in [1, 2], the refined reciprocal is good to ~1e-8 relative
//    (AVX2 ~1.4e-7). Off by default: rcp14 + two FMAs measured ~15% slower than vdivps in
//    cache on Zen 4.
// The scalar fallback is the same algorithm, written so GCC can vectorise it.
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

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;     // exactly representable, n*kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
constexpr float kMinArg = -87.0f;          // exp(-87) ~ 1.6e-38 is still a normal float
// exp(r) ~ E0 + r*(E1 + r*(E2 + r*(E3 + r*(E4 + r*E5)))) on |r| <= ln2/2 (minimax, relative).
constexpr float kE0 = 1.00000007165f, kE1 = 0.999999691992f, kE2 = 0.499988948515f;
constexpr float kE3 = 0.166675747267f, kE4 = 0.0419153819779f, kE5 = 0.00829765519827f;

inline int64_t HeadToAlignment(const float* y, int64_t n) {  // elements before 64 B
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
  return std::min(misaligned == 0 ? int64_t{0} : 16 - misaligned, n);
}

#if defined(__AVX512F__)
inline __m512 Swish16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // a = max(-|x|, -87): -|x| by setting the sign bit.
  const __m512 nax = _mm512_castsi512_ps(
      _mm512_or_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  const __m512 a = _mm512_max_ps(nax, _mm512_set1_ps(kMinArg));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), a);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kE5), r, _mm512_set1_ps(kE4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kE0));
  const __m512 t = _mm512_scalef_ps(p, n);  // exp(a)
  const __m512 den = _mm512_add_ps(t, one);
#if RCP_NEWTON
  __m512 inv = _mm512_rcp14_ps(den);
  inv = _mm512_mul_ps(inv, _mm512_fnmadd_ps(den, inv, _mm512_set1_ps(2.0f)));
  const __m512 s = _mm512_mul_ps(t, inv);
#else
  const __m512 s = _mm512_div_ps(t, den);
#endif
  return _mm512_fmadd_ps(a, s, _mm512_max_ps(x, _mm512_setzero_ps()));
}

template <bool kStream>
void SwishBody(const float* x, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 16 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m512 v = Swish16(_mm512_loadu_ps(x + i + 16 * u));
      if constexpr (kStream) _mm512_stream_ps(y + i + 16 * u, v);
      else _mm512_storeu_ps(y + i + 16 * u, v);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 v = Swish16(_mm512_loadu_ps(x + i));
    if constexpr (kStream) _mm512_stream_ps(y + i, v);
    else _mm512_storeu_ps(y + i, v);
  }
  if (i < n) {  // masked tail: lanes past n are neither read nor written
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, Swish16(_mm512_maskz_loadu_ps(m, x + i)));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256 Swish8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 a = _mm256_max_ps(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(kMinArg));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(a, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), a);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kE5), r, _mm256_set1_ps(kE4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE0));
  const __m256i e = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  const __m256 t = _mm256_mul_ps(p, _mm256_castsi256_ps(e));  // exp(a)
  const __m256 den = _mm256_add_ps(t, one);
#if RCP_NEWTON
  __m256 inv = _mm256_rcp_ps(den);
  inv = _mm256_mul_ps(inv, _mm256_fnmadd_ps(den, inv, _mm256_set1_ps(2.0f)));
  const __m256 s = _mm256_mul_ps(t, inv);
#else
  const __m256 s = _mm256_div_ps(t, den);
#endif
  return _mm256_fmadd_ps(a, s, _mm256_max_ps(x, _mm256_setzero_ps()));
}

template <bool kStream>
void SwishBody(const float* x, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 8 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m256 v = Swish8(_mm256_loadu_ps(x + i + 8 * u));
      if constexpr (kStream) _mm256_stream_ps(y + i + 8 * u, v);
      else _mm256_storeu_ps(y + i + 8 * u, v);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = Swish8(_mm256_loadu_ps(x + i));
    if constexpr (kStream) _mm256_stream_ps(y + i, v);
    else _mm256_storeu_ps(y + i, v);
  }
  if (i < n) {  // lanes [0, n - i) via maskload/maskstore, same formula as the body
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n - i)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(y + i, m, Swish8(_mm256_maskload_ps(x + i, m)));
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

// Same math, branch-free so GCC vectorises the loop: float compares are not if-converted
// under the default -ftrapping-math, so min/max are done on the bit patterns (non-negative
// floats order like their bits), and truncation replaces nearbyint (a <= 0, so truncating
// a*log2e - 0.5 rounds to nearest).
inline float SwishScalar(float x) {
  const float a = -FromBits(std::min(Bits(std::fabs(x)), Bits(-kMinArg)));  // -min(|x|, 87)
  const int32_t ni = static_cast<int32_t>(a * kLog2e - 0.5f);
  const float n = static_cast<float>(ni);
  float r = a - n * kLn2Hi;
  r = r - n * kLn2Lo;
  const float p = kE0 + r * (kE1 + r * (kE2 + r * (kE3 + r * (kE4 + r * kE5))));
  const float t = p * FromBits(static_cast<uint32_t>(ni + 127) << 23);  // 2^n, n >= -126
  return PositivePart(x) + a * (t / (1.0f + t));
}
#endif

}  // namespace

extern "C" void swish(const float* x, float* y, int64_t n) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (NT_STORES && n * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    const int64_t head = HeadToAlignment(y, n);  // 0 when y is 64-byte aligned (the ABI)
    SwishBody<false>(x, y, 0, head);
    SwishBody<true>(x, y, head, n);
    _mm_sfence();
  } else {
    SwishBody<false>(x, y, 0, n);
  }
#else
  for (int64_t i = 0; i < n; ++i) y[i] = SwishScalar(x[i]);
#endif
}
