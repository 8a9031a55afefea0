// What `cannbot suggest examples/prelu/naive.cpp --op prelu` found offline on an AVX-512
// machine (recipe prelu-stream (UNROLL=2)),
// validated at 1.3x the naive kernel.
// instantiated from recipe prelu-stream: UNROLL=2
#define UNROLL 2
// cannbot-recipe
// name: prelu-stream
// op: prelu
// summary: per-channel runs of hw with the slope broadcast once, 16/8 lanes, UNROLL vectors per iteration, masked heads/tails, NT stores for large outputs
// params: UNROLL=2,1,4
// ---
// y = x > 0 ? x : alpha[ch] * x over [n, c, hw]: the n*c runs of hw contiguous elements each
// use one slope, so the slope is broadcast once per run and the inner loop is a plain
// stream (one compare and one masked multiply per vector). A nested scalar loop already gets
// vectorised by GCC and runs near memory bandwidth, so the lever is traffic:
//  * y is written with non-temporal (streaming) stores when the tensor is large (>= 4 MB):
//    ordinary stores first read the line they overwrite (read-for-ownership); streaming
//    stores skip that, a third less traffic. Each run starts with ordinary masked stores up
//    to y's next 64-byte boundary (runs start anywhere when hw is not a multiple of 16) and
//    ends with a masked tail; an sfence orders the streaming stores before returning.
//    Smaller outputs, likely to be read back from cache by the next op, use ordinary stores.
//    Measured 1.2-1.5x over the GCC-vectorised plain loop on a Zen 4 test machine.
//  * UNROLL independent vectors per iteration keep enough loads in flight.
// The multiply is the same single fp32 product as the reference on every path (AVX-512,
// AVX2, scalar), so results are exact and independent of alignment.
#ifndef UNROLL
#define UNROLL 2
#endif

#include <algorithm>
#include <cstdint>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

constexpr int64_t kStreamMinBytes = int64_t{4} << 20;  // streaming stores from 4 MB of y
static_assert(UNROLL >= 1 && UNROLL <= 8, "UNROLL must be 1..8");

inline int64_t HeadToAlignment(const float* y, int64_t len) {  // elements before 64 B
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
  return std::min(misaligned == 0 ? int64_t{0} : 16 - misaligned, len);
}

#if defined(__AVX512F__)
inline __m512 Prelu16(__m512 v, __m512 slope) {
  // Lanes that are not > 0 (including -0 and NaN) get slope * v, as in the reference.
  const __mmask16 k = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NGT_UQ);
  return _mm512_mask_mul_ps(v, k, v, slope);
}

inline void PreluMasked(const float* x, float* y, int64_t count, __m512 slope) {  // 0 < count <= 16
  const __mmask16 m = static_cast<__mmask16>((1u << count) - 1u);
  _mm512_mask_storeu_ps(y, m, Prelu16(_mm512_maskz_loadu_ps(m, x), slope));
}

template <bool kStream>
void PreluRun(const float* x, float* y, int64_t len, float alpha) {
  const __m512 slope = _mm512_set1_ps(alpha);
  int64_t i = 0;
  if constexpr (kStream) {
    i = HeadToAlignment(y, len);
    if (i > 0) PreluMasked(x, y, i, slope);
  }
  constexpr int64_t kStep = 16 * UNROLL;
  for (; i + kStep <= len; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m512 v = Prelu16(_mm512_loadu_ps(x + i + 16 * u), slope);
      if constexpr (kStream) _mm512_stream_ps(y + i + 16 * u, v);
      else _mm512_storeu_ps(y + i + 16 * u, v);
    }
  }
  for (; i + 16 <= len; i += 16) {
    const __m512 v = Prelu16(_mm512_loadu_ps(x + i), slope);
    if constexpr (kStream) _mm512_stream_ps(y + i, v);
    else _mm512_storeu_ps(y + i, v);
  }
  if (i < len) PreluMasked(x + i, y + i, len - i, slope);
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256 Prelu8(__m256 v, __m256 slope) {
  const __m256 k = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_NGT_UQ);
  return _mm256_blendv_ps(v, _mm256_mul_ps(v, slope), k);
}

inline void PreluMasked(const float* x, float* y, int64_t count, __m256 slope) {  // 0 < count < 8
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(y, m, Prelu8(_mm256_maskload_ps(x, m), slope));
}

template <bool kStream>
void PreluRun(const float* x, float* y, int64_t len, float alpha) {
  const __m256 slope = _mm256_set1_ps(alpha);
  int64_t i = 0;
  if constexpr (kStream) {
    const int64_t head = HeadToAlignment(y, len);
    for (; i + 8 <= head; i += 8) _mm256_storeu_ps(y + i, Prelu8(_mm256_loadu_ps(x + i), slope));
    if (i < head) PreluMasked(x + i, y + i, head - i, slope);
    i = head;
  }
  constexpr int64_t kStep = 8 * UNROLL;
  for (; i + kStep <= len; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m256 v = Prelu8(_mm256_loadu_ps(x + i + 8 * u), slope);
      if constexpr (kStream) _mm256_stream_ps(y + i + 8 * u, v);
      else _mm256_storeu_ps(y + i + 8 * u, v);
    }
  }
  for (; i + 8 <= len; i += 8) {
    const __m256 v = Prelu8(_mm256_loadu_ps(x + i), slope);
    if constexpr (kStream) _mm256_stream_ps(y + i, v);
    else _mm256_storeu_ps(y + i, v);
  }
  if (i < len) PreluMasked(x + i, y + i, len - i, slope);
}
#else
template <bool kStream>
void PreluRun(const float* x, float* y, int64_t len, float alpha) {
  for (int64_t i = 0; i < len; ++i) y[i] = x[i] > 0.0f ? x[i] : alpha * x[i];
}
#endif

template <bool kStream>
void PreluAll(const float* x, const float* alpha, float* y, int64_t n, int64_t c, int64_t hw) {
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const int64_t base = (b * c + ch) * hw;
      PreluRun<kStream>(x + base, y + base, hw, alpha[ch]);
    }
  }
}

}  // namespace

extern "C" void prelu(const float* x, const float* alpha, float* y, int64_t n, int64_t c,
                      int64_t hw) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (n * c * hw * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    PreluAll<true>(x, alpha, y, n, c, hw);
    _mm_sfence();
    return;
  }
#endif
  PreluAll<false>(x, alpha, y, n, c, hw);
}
