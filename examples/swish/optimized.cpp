// Optimized swish (SiLU): y = x * sigmoid(x) = x / (1 + exp(-x)).
//
// Techniques:
//  * Own vectorised exp (Cephes-style): exp(a) = 2^n * p(r) with n = round(a*log2(e)),
//    r = a - n*ln2 (ln2 split into hi+lo parts for an exact-enough reduction) and a
//    degree-7 polynomial for p; about 1-2 ulp. 16 lanes per AVX-512 instruction instead
//    of one libm call per element.
//  * Sign-split formulation that saturates by construction: with t = exp(-|x|) in (0,1],
//      x >= 0:  y = x     / (1 + t)
//      x <  0:  y = x * t / (1 + t)
//    exp is only evaluated for arguments <= -2^-40, so it never overflows and no step of it
//    underflows (no subnormal numbers: each costs Intel cores a microcode assist). When |x| > 87 the
//    (clamped) exp would be wrong, so t is forced to exactly 0 there: y becomes x for big
//    positive x and -0 for big negative x (a clamped exp would give swish(-3e38) ~ -0.88).
//  * Exact division (vdivps) rather than a reciprocal estimate: at 16 lanes it is not the
//    bottleneck; the perf shape (2 x 16 MB) runs at about memory bandwidth.
//  * Tails handled with AVX-512 masked loads/stores, so there is no scalar remainder loop.
//  * Non-temporal stores were tried and were ~5% slower here: with repeated calls part of
//    the 32 MB working set stays in L3, and streaming stores always go to DRAM.
//  * AVX2 and portable fall-backs use the same algorithm and constants; the portable
//    scalar code is branch-free so GCC auto-vectorises it with SSE2.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;    // exactly representable, n*kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
constexpr float kMaxAbs = 87.0f;  // exp(-87) ~ 1.6e-38 is still a normal float
// The exp argument is at least this far from 0: for smaller |x| the polynomial's r*r would
// underflow (a subnormal or flushed result costs Intel cores a microcode assist per element),
// and exp(-2^-40) is 1 in fp32 anyway.
constexpr float kMinAbs = 9.094947e-13f;  // 2^-40
// Cephes expf polynomial: exp(r) ~ 1 + r + r^2 * (P0 r^5 + P1 r^4 + ... + P5), |r| <= ln2/2.
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f;
constexpr float kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

#if !defined(__AVX512F__)
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

// Scalar version of exactly the same math (used for the portable build and AVX2 tails).
inline float SwishScalar(float x) {
  const float ax = std::fabs(x);
  // clamp(|x|, kMinAbs, kMaxAbs) as integer min/max: non-negative floats order like their bits.
  const float a = -FromBits(std::max(std::min(Bits(ax), Bits(kMaxAbs)), Bits(kMinAbs)));
  // a <= 0, so truncating (a*log2e - 0.5) toward zero rounds to nearest; unlike
  // nearbyint this is a plain cvttss2si and lets the compiler vectorise the loop.
  const int32_t ni = static_cast<int32_t>(a * kLog2e - 0.5f);
  const float n = static_cast<float>(ni);
  float r = a - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP0;
  p = p * r + kP1; p = p * r + kP2; p = p * r + kP3; p = p * r + kP4; p = p * r + kP5;
  p = p * (r * r) + (r + 1.0f);
  // 2^n built directly in the exponent bits (n >= -126, so the result is normal).
  const float scale = FromBits(static_cast<uint32_t>(ni + 127) << 23);
  // Selections use integer bit masks rather than float compares: under the default
  // -ftrapping-math GCC will not if-convert float compares, and a data-dependent branch
  // on the sign of x mispredicts half the time. Integer selects keep the loop
  // branch-free and let the compiler vectorise the portable build.
  const uint32_t keep = -static_cast<uint32_t>(Bits(ax) <= Bits(kMaxAbs));
  const float t = FromBits(Bits(p * scale) & keep);  // 0 when |x| > kMaxAbs
  const uint32_t neg = -(Bits(x) >> 31);             // all ones when x has its sign set
  const float num = FromBits((Bits(x) & ~neg) | (Bits(x * t) & neg));
  return num / (1.0f + t);
}
#endif

#if defined(__AVX512F__)

inline __m512 Swish16(__m512 x) {
  const __m512 ax = _mm512_abs_ps(x);
  const __m512 a = _mm512_sub_ps(
      _mm512_setzero_ps(),
      _mm512_max_ps(_mm512_min_ps(ax, _mm512_set1_ps(kMaxAbs)), _mm512_set1_ps(kMinAbs)));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), a);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  // t = exp(-|x|), forced to 0 where |x| > kMaxAbs (saturation, see header).
  const __mmask16 in_range = _mm512_cmp_ps_mask(ax, _mm512_set1_ps(kMaxAbs), _CMP_LE_OQ);
  const __m512 t = _mm512_maskz_scalef_ps(in_range, p, n);
  const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
  const __m512 num = _mm512_mask_mul_ps(x, neg, x, t);
  return _mm512_div_ps(num, _mm512_add_ps(t, _mm512_set1_ps(1.0f)));
}
#elif defined(__AVX2__)
inline __m256 Swish8(__m256 x) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256 ax = _mm256_andnot_ps(sign, x);
  const __m256 a = _mm256_xor_ps(
      sign, _mm256_max_ps(_mm256_min_ps(ax, _mm256_set1_ps(kMaxAbs)), _mm256_set1_ps(kMinAbs)));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(a, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), a);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i e = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  __m256 t = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
  t = _mm256_and_ps(t, _mm256_cmp_ps(ax, _mm256_set1_ps(kMaxAbs), _CMP_LE_OQ));
  const __m256 neg = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
  const __m256 num = _mm256_blendv_ps(x, _mm256_mul_ps(x, t), neg);
  return _mm256_div_ps(num, _mm256_add_ps(t, _mm256_set1_ps(1.0f)));
}
#endif

}  // namespace

extern "C" void swish(const float* x, float* y, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  // A plain streaming loop: the out-of-order core overlaps the exp/divide chains of
  // consecutive iterations, and the hardware prefetcher sees two sequential streams.
  for (; i + 16 <= n; i += 16) {
    _mm512_storeu_ps(y + i, Swish16(_mm512_loadu_ps(x + i)));
  }
  if (i < n) {
    // Masked tail: lanes beyond n are neither read nor written.
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, Swish16(_mm512_maskz_loadu_ps(m, x + i)));
  }
#elif defined(__AVX2__)
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, Swish8(_mm256_loadu_ps(x + i)));
  }
  for (; i < n; ++i) y[i] = SwishScalar(x[i]);
#else
  for (; i < n; ++i) y[i] = SwishScalar(x[i]);
#endif
}
