// What `cannbot suggest examples/add/naive.cpp --op add` found offline on an AVX-512
// machine (recipe add-stream (UNROLL=2)),
// validated at 1.3x the naive kernel.
// instantiated from recipe add-stream: UNROLL=2
#define UNROLL 2
// cannbot-recipe
// name: add-stream
// op: add
// summary: one pass, 16 (AVX-512) or 8 (AVX2) lanes, UNROLL vectors per iteration, masked tail, non-temporal stores for large outputs
// params: UNROLL=2,1,4
// ---
// y[i] = a[i] + b[i]: three streams, no arithmetic to speak of. A plain loop already runs at
// memory bandwidth (GCC vectorises it), so the only lever is traffic:
//  * y is written with non-temporal (streaming) stores when it is large (>= 4 MB):
//    a normal store first reads the line it writes (read-for-ownership), so the traffic is
//    a + b + y(read) + y(write) = 4 streams; streaming stores skip that read (3 streams).
//    The head up to a 64-byte boundary of y and the tail use ordinary (masked) stores, and
//    an sfence orders the streaming stores before returning. Small outputs, which would
//    stay in cache for the next consumer, always use ordinary stores.
//    Measured 1.2-1.5x over the GCC-vectorised plain loop on a Zen 4 test machine.
//  * UNROLL independent vectors per iteration keep enough loads in flight.
// Every lane computes the same correctly rounded fp32 sum, so the result is exact and
// independent of the path (AVX-512, AVX2, scalar) and of the alignment.
#ifndef UNROLL
#define UNROLL 2
#endif

#include <cstdint>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

constexpr int64_t kStreamMinBytes = int64_t{4} << 20;  // streaming stores from 4 MB of y
static_assert(UNROLL >= 1 && UNROLL <= 8, "UNROLL must be 1..8");

#if defined(__AVX512F__)
inline __mmask16 Mask16(int64_t count) {  // lanes [0, count) for 0 < count <= 16
  return static_cast<__mmask16>((1u << count) - 1u);
}

template <bool kStream>
void AddBody(const float* a, const float* b, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 16 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m512 v =
          _mm512_add_ps(_mm512_loadu_ps(a + i + 16 * u), _mm512_loadu_ps(b + i + 16 * u));
      if constexpr (kStream) _mm512_stream_ps(y + i + 16 * u, v);
      else _mm512_storeu_ps(y + i + 16 * u, v);
    }
  }
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    if constexpr (kStream) _mm512_stream_ps(y + i, v);
    else _mm512_storeu_ps(y + i, v);
  }
  if (i < n) {  // masked tail: lanes past n are neither read nor written
    const __mmask16 m = Mask16(n - i);
    _mm512_mask_storeu_ps(y + i, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, a + i),
                                                  _mm512_maskz_loadu_ps(m, b + i)));
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
inline __m256i Mask8(int64_t count) {  // lanes [0, count) for 0 < count < 8
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <bool kStream>
void AddBody(const float* a, const float* b, float* y, int64_t i, int64_t n) {
  constexpr int64_t kStep = 8 * UNROLL;
  for (; i + kStep <= n; i += kStep) {
    for (int u = 0; u < UNROLL; ++u) {
      const __m256 v =
          _mm256_add_ps(_mm256_loadu_ps(a + i + 8 * u), _mm256_loadu_ps(b + i + 8 * u));
      if constexpr (kStream) _mm256_stream_ps(y + i + 8 * u, v);
      else _mm256_storeu_ps(y + i + 8 * u, v);
    }
  }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    if constexpr (kStream) _mm256_stream_ps(y + i, v);
    else _mm256_storeu_ps(y + i, v);
  }
  if (i < n) {
    const __m256i m = Mask8(n - i);
    _mm256_maskstore_ps(y + i, m, _mm256_add_ps(_mm256_maskload_ps(a + i, m),
                                                 _mm256_maskload_ps(b + i, m)));
  }
}
#endif

}  // namespace

extern "C" void add(const float* a, const float* b, float* y, int64_t n) {
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  if (n * static_cast<int64_t>(sizeof(float)) >= kStreamMinBytes) {
    // Streaming stores need an aligned address: do the head up to y's next 64-byte
    // boundary with ordinary stores (none when y is 64-byte aligned, as the ABI says).
    const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(y) & 63u) / 4u);
    const int64_t head = misaligned == 0 ? 0 : 16 - misaligned;  // < 16 <= n here
    AddBody<false>(a, b, y, 0, head);
    AddBody<true>(a, b, y, head, n);
    _mm_sfence();
  } else {
    AddBody<false>(a, b, y, 0, n);
  }
#else
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
#endif
}
