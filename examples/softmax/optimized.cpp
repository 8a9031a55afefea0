// Optimized softmax over the last dimension (one row of `cols` values at a time).
//
// Techniques:
//  * Three passes per row (max, exp+sum, scale). A row of the perf shape (1024 floats =
//    4 KB) stays in L1 between the passes, so only the first read of x and the final
//    write of y touch memory.
//  * Own vectorised exp (Cephes-style, ~2 ulp): exp(d) = 2^n * p(r), n = round(d*log2 e),
//    r = d - n*ln2 with ln2 split hi/lo, degree-7 polynomial. The argument d = x - max is
//    always <= 0, so only underflow needs handling: d is clamped (which also maps -inf,
//    e.g. from -3e38 - 3e38, to a finite value) and tiny results flush towards 0.
//  * Max and sum use several independent vector accumulators to hide FP latency; the
//    reduction order is fixed, so results are bitwise deterministic.
//  * AVX-512 tails use masked loads/stores (masked-off lanes read as -inf for the max and
//    contribute 0 to the sum), so there is no scalar remainder loop.
//  * Division replaced by one exact reciprocal of the sum and a multiply per element.
//  * No subnormal numbers anywhere: exp arguments are clamped where the result is still a
//    normal float, and outputs that would scale into the subnormal range (e / sum below
//    FLT_MIN) are written as 0 without computing them. Each subnormal result costs Intel
//    cores a microcode assist; with the 1% edge inputs (+-1000) that made this kernel
//    slower than the naive one there. 0 for a true value below 1.2e-38 is far within the
//    tolerance.
//  * AVX2 and portable fall-backs use the same exp algorithm.
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kFloatMin = 1.17549435e-38f;  // the smallest normal float
constexpr float kLn2Hi = 0.693359375f;     // few mantissa bits: n*kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
// Cephes expf: exp(r) ~ 1 + r + r^2 * (P0 r^5 + ... + P5) for |r| <= ln2/2.
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f;
constexpr float kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

#if !defined(__AVX512F__)
// Clamp for exp arguments when 2^n is built from exponent bits (AVX2/scalar): n >= -126.
// exp(-87) ~ 1.6e-38 instead of 0 is far below the tolerance.
constexpr float kMinArgBits = -87.0f;

// exp(d) for d <= 0, scalar. Integer conversion instead of nearbyint keeps it inlined.
inline float ExpNonPositive(float d) {
  d = d > kMinArgBits ? d : kMinArgBits;  // also maps -inf to the clamp
  const int32_t ni = static_cast<int32_t>(d * kLog2e - 0.5f);  // d<=0: rounds to nearest
  const float n = static_cast<float>(ni);
  float r = d - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP0;
  p = p * r + kP1; p = p * r + kP2; p = p * r + kP3; p = p * r + kP4; p = p * r + kP5;
  p = p * (r * r) + (r + 1.0f);
  const uint32_t bits = static_cast<uint32_t>(ni + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}
#endif

#if defined(__AVX512F__)
// scalef could build results in the subnormal range, but producing a subnormal costs Intel
// cores a microcode assist per element (the 1% edge inputs made this kernel slower than the
// naive one there), so the argument is clamped where the result is still a normal float:
// exp(-87) ~ 1.6e-38 instead of 0 is far below the tolerance.
constexpr float kMinArgScalef = -87.0f;

inline __m512 Exp16(__m512 d) {
  d = _mm512_max_ps(d, _mm512_set1_ps(kMinArgScalef));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(d, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), d);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);  // p * 2^n, correct into the denormal range
}

void SoftmaxRow(const float* x, float* y, int64_t cols) {
  const int64_t full = cols & ~int64_t{15};
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols - full)) - 1u);
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);

  // Pass 1: row max, four accumulators.
  __m512 m0 = neg_inf, m1 = neg_inf, m2 = neg_inf, m3 = neg_inf;
  int64_t j = 0;
  for (; j + 64 <= full; j += 64) {
    m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + j));
    m1 = _mm512_max_ps(m1, _mm512_loadu_ps(x + j + 16));
    m2 = _mm512_max_ps(m2, _mm512_loadu_ps(x + j + 32));
    m3 = _mm512_max_ps(m3, _mm512_loadu_ps(x + j + 48));
  }
  for (; j < full; j += 16) m0 = _mm512_max_ps(m0, _mm512_loadu_ps(x + j));
  if (tail) m1 = _mm512_max_ps(m1, _mm512_mask_loadu_ps(neg_inf, tail, x + j));
  const float mx = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
  const __m512 vmax = _mm512_set1_ps(mx);

  // Pass 2: y = exp(x - max), summed with two accumulators (the exp chain is long enough
  // that the out-of-order core overlaps iterations anyway).
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  for (j = 0; j + 32 <= full; j += 32) {
    const __m512 e0 = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), vmax));
    const __m512 e1 = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j + 16), vmax));
    _mm512_storeu_ps(y + j, e0);
    _mm512_storeu_ps(y + j + 16, e1);
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
  }
  for (; j < full; j += 16) {
    const __m512 e = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), vmax));
    _mm512_storeu_ps(y + j, e);
    s0 = _mm512_add_ps(s0, e);
  }
  if (tail) {
    const __m512 e = Exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, x + j), vmax));
    _mm512_mask_storeu_ps(y + j, tail, e);
    s1 = _mm512_mask_add_ps(s1, tail, s1, e);  // add only the valid lanes
  }
  const float sum = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));

  // Pass 3: scale by the reciprocal (sum >= 1 because the max element contributes 1). Lanes
  // whose result would be subnormal are masked off, so the multiply never produces one.
  const __m512 inv = _mm512_set1_ps(1.0f / sum);
  const __m512 smallest = _mm512_set1_ps(kFloatMin * sum);
  for (j = 0; j < full; j += 16) {
    const __m512 e = _mm512_loadu_ps(y + j);
    const __mmask16 normal = _mm512_cmp_ps_mask(e, smallest, _CMP_GE_OQ);
    _mm512_storeu_ps(y + j, _mm512_maskz_mul_ps(normal, e, inv));
  }
  if (tail) {
    const __m512 e = _mm512_maskz_loadu_ps(tail, y + j);
    const __mmask16 normal = _mm512_mask_cmp_ps_mask(tail, e, smallest, _CMP_GE_OQ);
    _mm512_mask_storeu_ps(y + j, tail, _mm512_maskz_mul_ps(normal, e, inv));
  }
}
#elif defined(__AVX2__)
inline __m256 Exp8(__m256 d) {
  d = _mm256_max_ps(d, _mm256_set1_ps(kMinArgBits));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), d);
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
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

inline float HorizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

void SoftmaxRow(const float* x, float* y, int64_t cols) {
  const int64_t full = cols & ~int64_t{7};
  __m256 vm = _mm256_set1_ps(-INFINITY);
  for (int64_t j = 0; j < full; j += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + j));
  float mx = HorizontalMax(vm);
  for (int64_t j = full; j < cols; ++j) mx = x[j] > mx ? x[j] : mx;

  const __m256 vmax = _mm256_set1_ps(mx);
  __m256 vs = _mm256_setzero_ps();
  for (int64_t j = 0; j < full; j += 8) {
    const __m256 e = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + j), vmax));
    _mm256_storeu_ps(y + j, e);
    vs = _mm256_add_ps(vs, e);
  }
  float sum = HorizontalSum(vs);
  for (int64_t j = full; j < cols; ++j) {
    y[j] = ExpNonPositive(x[j] - mx);
    sum += y[j];
  }

  // Lanes whose result would be subnormal are zeroed before the multiply (0 * inv = 0).
  const float inv = 1.0f / sum;
  const float smallest = kFloatMin * sum;
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256 vsmallest = _mm256_set1_ps(smallest);
  for (int64_t j = 0; j < full; j += 8) {
    const __m256 e = _mm256_loadu_ps(y + j);
    const __m256 normal = _mm256_and_ps(e, _mm256_cmp_ps(e, vsmallest, _CMP_GE_OQ));
    _mm256_storeu_ps(y + j, _mm256_mul_ps(normal, vinv));
  }
  for (int64_t j = full; j < cols; ++j) y[j] = y[j] >= smallest ? y[j] * inv : 0.0f;
}
#else
void SoftmaxRow(const float* x, float* y, int64_t cols) {
  float mx = x[0];
  for (int64_t j = 1; j < cols; ++j) mx = x[j] > mx ? x[j] : mx;
  float sum = 0.0f;
  for (int64_t j = 0; j < cols; ++j) {
    y[j] = ExpNonPositive(x[j] - mx);
    sum += y[j];
  }
  const float inv = 1.0f / sum;
  const float smallest = kFloatMin * sum;
  for (int64_t j = 0; j < cols; ++j) y[j] = y[j] >= smallest ? y[j] * inv : 0.0f;
}
#endif

}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) SoftmaxRow(x + r * cols, y + r * cols, cols);
}
