// What `cannbot suggest examples/layernorm_gelu/naive.cpp --op layernorm_gelu` found offline on an AVX-512
// machine (recipe layernorm_gelu-fused (NT_STORES=1 ACC=4 RCP_NEWTON=0)),
// validated at 24.2x the naive kernel.
// instantiated from recipe layernorm_gelu-fused: NT_STORES=1 ACC=4 RCP_NEWTON=0
#define NT_STORES 1
#define ACC 4
#define RCP_NEWTON 0
// cannbot-recipe
// name: layernorm_gelu-fused
// op: layernorm_gelu
// summary: per row in L1: two-pass mean/variance, exact rstd, then normalise+affine+exact-erf GELU (A&S 7.1.28, no exp) in one output pass, optional NT stores
// params: NT_STORES=0,1 ACC=4,2 RCP_NEWTON=0,1
// ---
// For each row: mean = sum/cols (pass 1, reads x from memory), var = sum (x - mean)^2 / cols
// (pass 2, x from L1: the variance is taken around the mean, so rows with mean 100 and
// stddev 1 do not cancel as E[x^2] - E[x]^2 would), rstd = 1/sqrt(var + eps) once per row
// in exact arithmetic, then y = (x - mean) * rstd * gamma + beta (pass 3, one sub, one mul,
// one FMA per vector) immediately followed by the GELU of that value: the normalised
// tensor never goes to memory. DRAM sees x once and y once; gamma and beta stay in L1/L2.
// GELU, exact form: y = max(t, 0) - |t| * c/2 with c = erfc(|t|/sqrt2), which is
// t*(1 - c/2) for t >= 0 and t*c/2 for t < 0 (no 1 + erf cancellation, no blend).
// erfc(a) ~ 1/(1 + C1 a + ... + C6 a^6)^16, Abramowitz & Stegun 7.1.28, max abs error 3e-7
// (2.6e-7 measured), with 1/sqrt2 folded into the coefficients; GELU error below 5e-7 plus
// ~4e-7 from the fp32 16th power: well inside 1e-5. |t| is clamped at 8.5 (erfc ~ 2e-17
// there), so nothing overflows. No exp: ~15 vector operations per 16 values, which matters
// because the fused kernel is compute-bound about as much as memory-bound. The tanh form
// (off by 4.7e-4) is not used.
// Parameters:
//  * NT_STORES: pass 3 writes y with streaming stores when y is >= 4 MB: ordinary stores
//    first read every line they overwrite (read-for-ownership), streaming stores skip it,
//    a third less DRAM traffic. Each row's head up to a 64-byte boundary and its tail use
//    ordinary masked stores (rows start anywhere when cols % 16 != 0); sfence at the end.
//    Off by default: unlike plain layernorm (1.3x), this compute-bound loop showed no gain
//    on a Zen 4 test machine.
//  * ACC: independent vector accumulators in the two reduction passes (the FP add latency
//    is hidden with 4 or more). The combining order depends only on cols: deterministic.
//    Rows longer than 4096 are reduced chunk by chunk, the chunk sums added in double.
//  * RCP_NEWTON: 1/p^16 as rcp14 (AVX-512) / rcp (AVX2) plus one Newton step instead of a
//    divide (refined error ~1e-8 relative, AVX2 ~1.4e-7).
#ifndef NT_STORES
#define NT_STORES 0
#endif
#ifndef ACC
#define ACC 4
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

static_assert(ACC >= 1 && ACC <= 8, "ACC must be 1..8");
constexpr int64_t kStreamMinBytes = int64_t{4} << 20;  // streaming stores from 4 MB of y
constexpr int64_t kChunk = 4096;  // floats per fp32 partial reduction (16 KB, in L1)

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
inline __mmask16 Mask16(int64_t count) {  // lanes [0, count), 0 < count <= 16
  return static_cast<__mmask16>((1u << count) - 1u);
}

inline __m512 Combine(__m512* acc) {  // fixed tree order
  for (int k = 1; k < ACC; ++k) acc[0] = _mm512_add_ps(acc[0], acc[k]);
  return acc[0];
}

float ChunkSum(const float* x, int64_t cols) {
  __m512 s[ACC];
  for (int k = 0; k < ACC; ++k) s[k] = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 16 * ACC <= cols; j += 16 * ACC) {
    for (int k = 0; k < ACC; ++k) s[k] = _mm512_add_ps(s[k], _mm512_loadu_ps(x + j + 16 * k));
  }
  for (; j + 16 <= cols; j += 16) s[0] = _mm512_add_ps(s[0], _mm512_loadu_ps(x + j));
  if (j < cols) s[0] = _mm512_add_ps(s[0], _mm512_maskz_loadu_ps(Mask16(cols - j), x + j));
  return _mm512_reduce_add_ps(Combine(s));
}

float ChunkSumSqDev(const float* x, int64_t cols, float mean) {
  const __m512 vm = _mm512_set1_ps(mean);
  __m512 s[ACC];
  for (int k = 0; k < ACC; ++k) s[k] = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 16 * ACC <= cols; j += 16 * ACC) {
    for (int k = 0; k < ACC; ++k) {
      const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + j + 16 * k), vm);
      s[k] = _mm512_fmadd_ps(d, d, s[k]);
    }
  }
  for (; j + 16 <= cols; j += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + j), vm);
    s[0] = _mm512_fmadd_ps(d, d, s[0]);
  }
  if (j < cols) {
    const __mmask16 m = Mask16(cols - j);
    const __m512 d = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + j), vm);  // 0 off-row
    s[0] = _mm512_fmadd_ps(d, d, s[0]);
  }
  return _mm512_reduce_add_ps(Combine(s));
}

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

inline __m512 Norm16(__m512 x, __m512 vm, __m512 vr, __m512 g, __m512 b) {
  return Gelu16(_mm512_fmadd_ps(_mm512_mul_ps(_mm512_sub_ps(x, vm), vr), g, b));
}

template <bool kStream>
void NormRow(const float* x, const float* gamma, const float* beta, float* y, int64_t cols,
             float mean, float rstd) {
  const __m512 vm = _mm512_set1_ps(mean), vr = _mm512_set1_ps(rstd);
  int64_t j = 0;
  if constexpr (kStream) {
    j = HeadToAlignment(y, cols);
    if (j > 0) {
      const __mmask16 m = Mask16(j);
      _mm512_mask_storeu_ps(y, m, Norm16(_mm512_maskz_loadu_ps(m, x), vm, vr,
                                         _mm512_maskz_loadu_ps(m, gamma),
                                         _mm512_maskz_loadu_ps(m, beta)));
    }
  }
  for (; j + 16 <= cols; j += 16) {
    const __m512 v = Norm16(_mm512_loadu_ps(x + j), vm, vr, _mm512_loadu_ps(gamma + j),
                            _mm512_loadu_ps(beta + j));
    if constexpr (kStream) _mm512_stream_ps(y + j, v);
    else _mm512_storeu_ps(y + j, v);
  }
  if (j < cols) {
    const __mmask16 m = Mask16(cols - j);
    _mm512_mask_storeu_ps(y + j, m, Norm16(_mm512_maskz_loadu_ps(m, x + j), vm, vr,
                                           _mm512_maskz_loadu_ps(m, gamma + j),
                                           _mm512_maskz_loadu_ps(m, beta + j)));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256i Mask8(int64_t count) {  // lanes [0, count), 0 < count < 8
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

inline __m256 Combine(__m256* acc) {
  for (int k = 1; k < ACC; ++k) acc[0] = _mm256_add_ps(acc[0], acc[k]);
  return acc[0];
}

float ChunkSum(const float* x, int64_t cols) {
  __m256 s[ACC];
  for (int k = 0; k < ACC; ++k) s[k] = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 * ACC <= cols; j += 8 * ACC) {
    for (int k = 0; k < ACC; ++k) s[k] = _mm256_add_ps(s[k], _mm256_loadu_ps(x + j + 8 * k));
  }
  for (; j + 8 <= cols; j += 8) s[0] = _mm256_add_ps(s[0], _mm256_loadu_ps(x + j));
  if (j < cols) s[0] = _mm256_add_ps(s[0], _mm256_maskload_ps(x + j, Mask8(cols - j)));
  return HorizontalSum(Combine(s));
}

float ChunkSumSqDev(const float* x, int64_t cols, float mean) {
  const __m256 vm = _mm256_set1_ps(mean);
  __m256 s[ACC];
  for (int k = 0; k < ACC; ++k) s[k] = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 * ACC <= cols; j += 8 * ACC) {
    for (int k = 0; k < ACC; ++k) {
      const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + j + 8 * k), vm);
      s[k] = _mm256_fmadd_ps(d, d, s[k]);
    }
  }
  for (; j + 8 <= cols; j += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + j), vm);
    s[0] = _mm256_fmadd_ps(d, d, s[0]);
  }
  if (j < cols) {
    const __m256i mk = Mask8(cols - j);
    const __m256 d = _mm256_and_ps(_mm256_sub_ps(_mm256_maskload_ps(x + j, mk), vm),
                                   _mm256_castsi256_ps(mk));  // 0 off-row
    s[0] = _mm256_fmadd_ps(d, d, s[0]);
  }
  return HorizontalSum(Combine(s));
}

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

inline __m256 Norm8(__m256 x, __m256 vm, __m256 vr, __m256 g, __m256 b) {
  return Gelu8(_mm256_fmadd_ps(_mm256_mul_ps(_mm256_sub_ps(x, vm), vr), g, b));
}

inline void NormMasked(const float* x, const float* gamma, const float* beta, float* y,
                       int64_t count, __m256 vm, __m256 vr) {  // 0 < count < 8
  const __m256i mk = Mask8(count);
  _mm256_maskstore_ps(y, mk, Norm8(_mm256_maskload_ps(x, mk), vm, vr,
                                   _mm256_maskload_ps(gamma, mk), _mm256_maskload_ps(beta, mk)));
}

template <bool kStream>
void NormRow(const float* x, const float* gamma, const float* beta, float* y, int64_t cols,
             float mean, float rstd) {
  const __m256 vm = _mm256_set1_ps(mean), vr = _mm256_set1_ps(rstd);
  int64_t j = 0;
  if constexpr (kStream) {
    const int64_t head = HeadToAlignment(y, cols);
    for (; j + 8 <= head; j += 8) {
      _mm256_storeu_ps(y + j, Norm8(_mm256_loadu_ps(x + j), vm, vr, _mm256_loadu_ps(gamma + j),
                                    _mm256_loadu_ps(beta + j)));
    }
    if (j < head) NormMasked(x + j, gamma + j, beta + j, y + j, head - j, vm, vr);
    j = head;
  }
  for (; j + 8 <= cols; j += 8) {
    const __m256 v = Norm8(_mm256_loadu_ps(x + j), vm, vr, _mm256_loadu_ps(gamma + j),
                           _mm256_loadu_ps(beta + j));
    if constexpr (kStream) _mm256_stream_ps(y + j, v);
    else _mm256_storeu_ps(y + j, v);
  }
  if (j < cols) NormMasked(x + j, gamma + j, beta + j, y + j, cols - j, vm, vr);
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

float ChunkSum(const float* x, int64_t cols) {
  float s[ACC] = {};
  int64_t j = 0;
  for (; j + ACC <= cols; j += ACC) {
    for (int k = 0; k < ACC; ++k) s[k] += x[j + k];
  }
  for (; j < cols; ++j) s[0] += x[j];
  for (int k = 1; k < ACC; ++k) s[0] += s[k];
  return s[0];
}

float ChunkSumSqDev(const float* x, int64_t cols, float mean) {
  float s[ACC] = {};
  int64_t j = 0;
  for (; j + ACC <= cols; j += ACC) {
    for (int k = 0; k < ACC; ++k) s[k] += (x[j + k] - mean) * (x[j + k] - mean);
  }
  for (; j < cols; ++j) s[0] += (x[j] - mean) * (x[j] - mean);
  for (int k = 1; k < ACC; ++k) s[0] += s[k];
  return s[0];
}

template <bool kStream>
void NormRow(const float* x, const float* gamma, const float* beta, float* y, int64_t cols,
             float mean, float rstd) {
  for (int64_t j = 0; j < cols; ++j) {
    y[j] = GeluScalar((x[j] - mean) * rstd * gamma[j] + beta[j]);
  }
}
#endif

// Long rows are reduced in chunks: each chunk in fp32 vector accumulators, the chunk sums
// in double, so the error does not grow with cols (one chunk at the usual sizes).
double RowSum(const float* x, int64_t cols) {
  double total = 0.0;
  for (int64_t j = 0; j < cols; j += kChunk) total += ChunkSum(x + j, std::min(kChunk, cols - j));
  return total;
}

double RowSumSqDev(const float* x, int64_t cols, float mean) {
  double total = 0.0;
  for (int64_t j = 0; j < cols; j += kChunk) {
    total += ChunkSumSqDev(x + j, std::min(kChunk, cols - j), mean);
  }
  return total;
}

template <bool kStream>
void LayerNormRows(const float* x, const float* gamma, const float* beta, float* y,
                   int64_t rows, int64_t cols, float eps) {
  const double n = static_cast<double>(cols);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    const float mean = static_cast<float>(RowSum(xr, cols) / n);
    const float var = static_cast<float>(RowSumSqDev(xr, cols, mean) / n);
    const float rstd = 1.0f / std::sqrt(var + eps);  // exact, once per row
    NormRow<kStream>(xr, gamma, beta, y + r * cols, cols, mean, rstd);
  }
}

}  // namespace

extern "C" void layernorm_gelu(const float* x, const float* gamma, const float* beta, float* y,
                               int64_t rows, int64_t cols, float eps) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (NT_STORES && rows * cols * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    LayerNormRows<true>(x, gamma, beta, y, rows, cols, eps);
    _mm_sfence();
    return;
  }
#endif
  LayerNormRows<false>(x, gamma, beta, y, rows, cols, eps);
}
