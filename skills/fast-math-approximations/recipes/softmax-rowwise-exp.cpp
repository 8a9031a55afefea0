// cannbot-recipe
// name: softmax-rowwise-exp
// op: softmax
// summary: max, exp+sum, scale per row while it sits in L1; exp of x - max by a degree-5 minimax polynomial; ACC accumulators; optional L1 scratch row + NT stores of y
// params: NT_STORES=0,1 ACC=4,2,8
// ---
// For each row: m = max_j x_j (pass 1, reads x from memory), e_j = exp(x_j - m) and
// s = sum e_j (pass 2, x from L1), y_j = e_j * (1/s) (pass 3). Subtracting the row max
// keeps exp <= 1 (inputs reach +-1000); s >= 1 because the max element contributes 1, so
// one exact division per row gives the scale.
// exp(d), d <= 0: n = round(d*log2 e), r = d - n*ln2 (Cody-Waite hi/lo), a degree-5
// polynomial fitted by Remez exchange for minimal relative error on |r| <= ln2/2 (7.5e-8 in
// exact arithmetic, at most 3 ulp = 2e-7 with the fp32 reduction: far inside the 5e-5
// rtol, and five FMAs instead of the eight of a Cephes-style 1 + r + r^2*P(r)); 2^n by
// scalef on AVX-512 or exponent bits on AVX2/scalar, the argument clamped at -87 on both
// (1.6e-38 instead of 0, far below the 1e-7 atol): a subnormal result would cost Intel cores
// a microcode assist per element. For the same reason pass 3 writes 0 where e_j / s would be
// subnormal (e_j < FLT_MIN * s) instead of computing it.
// Parameters:
//  * NT_STORES: pass 2 writes the exponentials to a stack scratch row (rows up to 8192
//    floats: it stays in L1 with the x row) and pass 3 writes y once with streaming stores
//    (aligned head and masked tail with ordinary stores, an sfence at the end). Ordinary
//    stores would first read every line of y (read-for-ownership): streaming saves a third
//    of the DRAM traffic. Used when y is >= 4 MB; longer rows fall back to y in place.
//    Off by default: on a Zen 4 test machine it measured 0.7-0.8x of ordinary stores
//    for this compute-heavy loop (the exp pass, not DRAM, sets the pace there).
//  * ACC: independent vector accumulators of the max pass (2 for the sum pass); the
//    combining order depends only on cols, so the output is deterministic.
#ifndef NT_STORES
#define NT_STORES 0
#endif
#ifndef ACC
#define ACC 4
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
constexpr int64_t kScratchFloats = 8192;               // 32 KB stack row for NT_STORES

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kFloatMin = 1.17549435e-38f;  // the smallest normal float
constexpr float kLn2Hi = 0.693359375f;     // few mantissa bits: n*kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;  // ln2 - kLn2Hi
// exp(r) ~ E0 + r*(E1 + r*(E2 + r*(E3 + r*(E4 + r*E5)))) on |r| <= ln2/2 (minimax, relative).
constexpr float kE0 = 1.00000007165f, kE1 = 0.999999691992f, kE2 = 0.499988948515f;
constexpr float kE3 = 0.166675747267f, kE4 = 0.0419153819779f, kE5 = 0.00829765519827f;

inline int64_t HeadToAlignment(const float* y, int64_t n) {  // elements before 64 B
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
  return std::min(misaligned == 0 ? int64_t{0} : 16 - misaligned, n);
}

#if defined(__AVX512F__)
inline __mmask16 Mask16(int64_t count) {  // lanes [0, count), 0 < count <= 16
  return static_cast<__mmask16>((1u << count) - 1u);
}

inline __m512 Exp16(__m512 d) {  // d <= 0
  d = _mm512_max_ps(d, _mm512_set1_ps(-87.0f));  // results stay normal floats (no assists)
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

float RowMax(const float* x, int64_t cols) {
  const __m512 neg_inf = _mm512_set1_ps(-INFINITY);
  __m512 m[ACC];
  for (int k = 0; k < ACC; ++k) m[k] = neg_inf;
  int64_t j = 0;
  for (; j + 16 * ACC <= cols; j += 16 * ACC) {
    for (int k = 0; k < ACC; ++k) m[k] = _mm512_max_ps(m[k], _mm512_loadu_ps(x + j + 16 * k));
  }
  for (; j + 16 <= cols; j += 16) m[0] = _mm512_max_ps(m[0], _mm512_loadu_ps(x + j));
  if (j < cols) m[0] = _mm512_max_ps(m[0], _mm512_mask_loadu_ps(neg_inf, Mask16(cols - j), x + j));
  for (int k = 1; k < ACC; ++k) m[0] = _mm512_max_ps(m[0], m[k]);
  return _mm512_reduce_max_ps(m[0]);
}

// e = exp(x - mx) written to e[], returns the sum.
float ExpSum(const float* x, float* e, int64_t cols, float mx) {
  const __m512 vmax = _mm512_set1_ps(mx);
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 32 <= cols; j += 32) {
    const __m512 e0 = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), vmax));
    const __m512 e1 = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j + 16), vmax));
    _mm512_storeu_ps(e + j, e0);
    _mm512_storeu_ps(e + j + 16, e1);
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
  }
  for (; j + 16 <= cols; j += 16) {
    const __m512 v = Exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), vmax));
    _mm512_storeu_ps(e + j, v);
    s0 = _mm512_add_ps(s0, v);
  }
  if (j < cols) {
    const __mmask16 m = Mask16(cols - j);
    const __m512 v = Exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + j), vmax));
    _mm512_mask_storeu_ps(e + j, m, v);
    s1 = _mm512_mask_add_ps(s1, m, s1, v);  // only the valid lanes
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

// e * inv, or 0 where the product would be subnormal (the multiply is masked off there).
inline __m512 Scaled16(__m512 e, __m512 inv, __m512 smallest) {
  return _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(e, smallest, _CMP_GE_OQ), e, inv);
}

template <bool kStream>
void Scale(const float* e, float* y, int64_t cols, float inv, float smallest) {
  const __m512 vinv = _mm512_set1_ps(inv);
  const __m512 vsmall = _mm512_set1_ps(smallest);
  int64_t j = 0;
  if constexpr (kStream) {
    j = HeadToAlignment(y, cols);
    if (j > 0) {
      const __mmask16 m = Mask16(j);
      _mm512_mask_storeu_ps(y, m, Scaled16(_mm512_maskz_loadu_ps(m, e), vinv, vsmall));
    }
  }
  for (; j + 16 <= cols; j += 16) {
    const __m512 v = Scaled16(_mm512_loadu_ps(e + j), vinv, vsmall);
    if constexpr (kStream) _mm512_stream_ps(y + j, v);
    else _mm512_storeu_ps(y + j, v);
  }
  if (j < cols) {
    const __mmask16 m = Mask16(cols - j);
    _mm512_mask_storeu_ps(y + j, m, Scaled16(_mm512_maskz_loadu_ps(m, e + j), vinv, vsmall));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256i Mask8(int64_t count) {  // lanes [0, count), 0 < count < 8
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline __m256 Exp8(__m256 d) {  // d <= 0
  d = _mm256_max_ps(d, _mm256_set1_ps(-87.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(d, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), d);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kE5), r, _mm256_set1_ps(kE4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kE0));
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

float RowMax(const float* x, int64_t cols) {
  const __m256 neg_inf = _mm256_set1_ps(-INFINITY);
  __m256 m[ACC];
  for (int k = 0; k < ACC; ++k) m[k] = neg_inf;
  int64_t j = 0;
  for (; j + 8 * ACC <= cols; j += 8 * ACC) {
    for (int k = 0; k < ACC; ++k) m[k] = _mm256_max_ps(m[k], _mm256_loadu_ps(x + j + 8 * k));
  }
  for (; j + 8 <= cols; j += 8) m[0] = _mm256_max_ps(m[0], _mm256_loadu_ps(x + j));
  if (j < cols) {
    const __m256i mk = Mask8(cols - j);
    const __m256 v =
        _mm256_blendv_ps(neg_inf, _mm256_maskload_ps(x + j, mk), _mm256_castsi256_ps(mk));
    m[0] = _mm256_max_ps(m[0], v);
  }
  for (int k = 1; k < ACC; ++k) m[0] = _mm256_max_ps(m[0], m[k]);
  return HorizontalMax(m[0]);
}

float ExpSum(const float* x, float* e, int64_t cols, float mx) {
  const __m256 vmax = _mm256_set1_ps(mx);
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 16 <= cols; j += 16) {
    const __m256 e0 = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + j), vmax));
    const __m256 e1 = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + j + 8), vmax));
    _mm256_storeu_ps(e + j, e0);
    _mm256_storeu_ps(e + j + 8, e1);
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
  }
  for (; j + 8 <= cols; j += 8) {
    const __m256 v = Exp8(_mm256_sub_ps(_mm256_loadu_ps(x + j), vmax));
    _mm256_storeu_ps(e + j, v);
    s0 = _mm256_add_ps(s0, v);
  }
  if (j < cols) {
    const __m256i mk = Mask8(cols - j);
    const __m256 v = _mm256_and_ps(Exp8(_mm256_sub_ps(_mm256_maskload_ps(x + j, mk), vmax)),
                                   _mm256_castsi256_ps(mk));  // invalid lanes add 0
    _mm256_maskstore_ps(e + j, mk, v);
    s1 = _mm256_add_ps(s1, v);
  }
  return HorizontalSum(_mm256_add_ps(s0, s1));
}

// e * inv, or 0 where the product would be subnormal (those lanes are zeroed first).
inline __m256 Scaled8(__m256 e, __m256 inv, __m256 smallest) {
  return _mm256_mul_ps(_mm256_and_ps(e, _mm256_cmp_ps(e, smallest, _CMP_GE_OQ)), inv);
}

template <bool kStream>
void Scale(const float* e, float* y, int64_t cols, float inv, float smallest) {
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256 vsmall = _mm256_set1_ps(smallest);
  int64_t j = 0;
  if constexpr (kStream) {
    const int64_t head = HeadToAlignment(y, cols);
    for (; j + 8 <= head; j += 8) {
      _mm256_storeu_ps(y + j, Scaled8(_mm256_loadu_ps(e + j), vinv, vsmall));
    }
    if (j < head) {
      const __m256i mk = Mask8(head - j);
      _mm256_maskstore_ps(y + j, mk, Scaled8(_mm256_maskload_ps(e + j, mk), vinv, vsmall));
    }
    j = head;
  }
  for (; j + 8 <= cols; j += 8) {
    const __m256 v = Scaled8(_mm256_loadu_ps(e + j), vinv, vsmall);
    if constexpr (kStream) _mm256_stream_ps(y + j, v);
    else _mm256_storeu_ps(y + j, v);
  }
  if (j < cols) {
    const __m256i mk = Mask8(cols - j);
    _mm256_maskstore_ps(y + j, mk, Scaled8(_mm256_maskload_ps(e + j, mk), vinv, vsmall));
  }
}
#else
// exp(d) for d <= 0, scalar, same algorithm; integer conversion instead of nearbyint.
inline float ExpNonPositive(float d) {
  d = d > -87.0f ? d : -87.0f;
  const int32_t ni = static_cast<int32_t>(d * kLog2e - 0.5f);  // d <= 0: round to nearest
  const float n = static_cast<float>(ni);
  float r = d - n * kLn2Hi;
  r = r - n * kLn2Lo;
  const float p = kE0 + r * (kE1 + r * (kE2 + r * (kE3 + r * (kE4 + r * kE5))));
  const uint32_t bits = static_cast<uint32_t>(ni + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

float RowMax(const float* x, int64_t cols) {
  float m[ACC];
  for (int k = 0; k < ACC; ++k) m[k] = -INFINITY;
  int64_t j = 0;
  for (; j + ACC <= cols; j += ACC) {
    for (int k = 0; k < ACC; ++k) m[k] = x[j + k] > m[k] ? x[j + k] : m[k];
  }
  for (; j < cols; ++j) m[0] = x[j] > m[0] ? x[j] : m[0];
  for (int k = 1; k < ACC; ++k) m[0] = m[k] > m[0] ? m[k] : m[0];
  return m[0];
}

float ExpSum(const float* x, float* e, int64_t cols, float mx) {
  float sum = 0.0f;
  for (int64_t j = 0; j < cols; ++j) {
    e[j] = ExpNonPositive(x[j] - mx);
    sum += e[j];
  }
  return sum;
}

template <bool kStream>
void Scale(const float* e, float* y, int64_t cols, float inv, float smallest) {
  for (int64_t j = 0; j < cols; ++j) y[j] = e[j] >= smallest ? e[j] * inv : 0.0f;
}
#endif

}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (NT_STORES && cols <= kScratchFloats &&
      rows * cols * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    alignas(64) float scratch[kScratchFloats];
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * cols;
      const float mx = RowMax(xr, cols);
      const float sum = ExpSum(xr, scratch, cols, mx);
      Scale<true>(scratch, y + r * cols, cols, 1.0f / sum, kFloatMin * sum);
    }
    _mm_sfence();
    return;
  }
#endif
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float mx = RowMax(xr, cols);
    const float sum = ExpSum(xr, yr, cols, mx);  // exponentials in y, scaled in place
    Scale<false>(yr, yr, cols, 1.0f / sum, kFloatMin * sum);
  }
}
