// cannbot-recipe
// name: depthwise_conv2d-rowblock
// op: depthwise_conv2d
// summary: ring of zero-padded rows, ROWS output rows x NVB vectors register block sharing each input row, 3x3/5x5 taps shifted in registers
// params: ROWS=4,2,3 NVB=4,3,2 SHIFT=1,0
// ---
// Depthwise 2-D convolution, NCHW, weights [c,1,kh,kw], zero padding, no bias.
//
// Techniques:
//  * Borders are handled by padding rows, not per-tap checks: each input row is copied
//    once into a small ring of zero-padded rows ([pad zeros | row | pad zeros | slack]),
//    each starting on a 64-byte boundary. Vertical padding is handled by restricting the
//    kernel rows to those inside the image, once per output row. No inner loop has a
//    bounds check; the ring keeps the rows in L1 for all output rows that reuse them.
//  * Register blocking over output rows (the part of a plane that is in cache is reused
//    from registers): ROWS consecutive output rows x up to NVB vectors of 16 columns per
//    pass. Input row t of the block is loaded once and feeds every output row q with
//    0 <= t - q < kh, so loads and shuffles per FMA fall as ROWS grows (ROWS 4 at 3x3:
//    6 input rows for 4 output rows instead of 12). ROWS x NVB accumulators are
//    independent FMA chains. A row's last block uses just enough vectors, the last one
//    stored with a lane mask. Rows near the top/bottom border are done one at a time.
//  * SHIFT 1 (AVX-512, kw 3 or 5): inputs are read with aligned loads only and the kw
//    shifted copies are made in registers with valignd; an unaligned 64-byte load always
//    splits across two cache lines. SHIFT 0: unaligned loads per tap.
//  * Other strides use a scalar loop over the same padded rows (no checks either).
//  * Every path sums taps in (kernel row, kernel column) order: deterministic results.
#ifndef ROWS
#define ROWS 4
#endif
#ifndef NVB
#define NVB 4
#endif
#ifndef SHIFT
#define SHIFT 1
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

constexpr int kRows = ROWS;
constexpr int kNvb = NVB;
static_assert(kRows >= 1 && kNvb >= 1, "ROWS and NVB must be >= 1");
constexpr int64_t kSlack = 16 * (kNvb + 2);  // zero floats after each padded row

// Output columns [0, ow) of one output row, any stride. rows[r] is the padded input row
// for kernel row r (only the nk rows inside the image), wk the matching weights.
void RowScalar(const float* const* rows, const float* wk, int64_t nk, int64_t kw,
               int64_t stride, int64_t ow, float* yrow) {
  for (int64_t j = 0; j < ow; ++j) {
    float acc = 0.0f;
    for (int64_t r = 0; r < nk; ++r) {
      const float* xr = rows[r] + j * stride;
      const float* wr = wk + r * kw;
      for (int64_t kj = 0; kj < kw; ++kj) acc += xr[kj] * wr[kj];
    }
    yrow[j] = acc;
  }
}

#if defined(__AVX512F__)
struct Vec {
  using T = __m512;
  static constexpr int kW = 16;
  static T Zero() { return _mm512_setzero_ps(); }
  static T Load(const float* p) { return _mm512_loadu_ps(p); }
  static T Bcast(const float* p) { return _mm512_set1_ps(*p); }
  static T Fma(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static void StoreFirst(float* p, T v, int64_t valid) {  // lanes [0, valid) only
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(0xFFFFu >> (16 - valid)), v);
  }
};
// Lanes k..k+15 of the 32-lane concatenation a1:a0: the input row shifted by k. valignd
// needs an immediate; with k a compile-time constant the switch folds away.
template <int K>
inline __m512 Shift(__m512 a0, __m512 a1) {
  return _mm512_castsi512_ps(
      _mm512_alignr_epi32(_mm512_castps_si512(a1), _mm512_castps_si512(a0), K));
}
inline __m512 ShiftBy(__m512 a0, __m512 a1, int k) {
  switch (k) {
    case 0: return a0;
    case 1: return Shift<1>(a0, a1);
    case 2: return Shift<2>(a0, a1);
    case 3: return Shift<3>(a0, a1);
    default: return Shift<4>(a0, a1);  // kw <= 5 on this path
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
struct Vec {
  using T = __m256;
  static constexpr int kW = 8;
  static T Zero() { return _mm256_setzero_ps(); }
  static T Load(const float* p) { return _mm256_loadu_ps(p); }
  static T Bcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T Fma(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static void StoreFirst(float* p, T v, int64_t valid) {
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(valid)),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(p, m, v);
  }
};
#endif

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
constexpr int kW = Vec::kW;

// R output rows (stride 1) x NV vectors starting at column j. Output row q uses input rows
// q .. q+nk-1 of `rows` with kernel rows 0 .. nk-1. `last` = valid lanes in the last
// vector. KW > 0 means kw == KW is known at compile time. Loads may run up to
// kW * (NV + 1) floats past the end of the padded row: they land in the zero slack and
// those lanes are never stored.
template <int R, int NV, int KW>
void Block(const float* const* rows, const float* wk, int64_t nk, int64_t kw, int64_t j,
           int64_t last, float* yrow, int64_t ow) {
  typename Vec::T acc[R][NV];
#pragma GCC unroll 8
  for (int q = 0; q < R; ++q)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[q][v] = Vec::Zero();
  const int64_t kwc = KW > 0 ? KW : kw;
  for (int64_t t = 0; t < nk + R - 1; ++t) {  // input rows
    const float* xr = rows[t] + j;
#if defined(__AVX512F__)
    // Known small kw: aligned loads (rows and j are 64-byte aligned), taps shifted in
    // registers. The kj loop is fully unrolled, so ShiftBy's switch folds to one valignd.
    constexpr bool kShiftInRegs = SHIFT != 0 && KW > 0 && KW <= 5;
    __m512 a[NV + 1];
    if constexpr (kShiftInRegs) {
#pragma GCC unroll 8
      for (int v = 0; v <= NV; ++v) a[v] = _mm512_load_ps(xr + kW * v);
    }
#endif
#pragma GCC unroll 16
    for (int64_t kj = 0; kj < kwc; ++kj) {
      typename Vec::T xv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
#if defined(__AVX512F__)
        if constexpr (kShiftInRegs) {
          xv[v] = ShiftBy(a[v], a[v + 1], static_cast<int>(kj));  // inputs kj+16v ..
          continue;
        }
#endif
        xv[v] = Vec::Load(xr + kj + kW * v);  // unaligned load of inputs kj+kW*v ..
      }
#pragma GCC unroll 8
      for (int q = 0; q < R; ++q) {
        const int64_t ki = t - q;  // kernel row that input row t is for output row q
        if (ki < 0 || ki >= nk) continue;
        const typename Vec::T wv = Vec::Bcast(wk + ki * kw + kj);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[q][v] = Vec::Fma(xv[v], wv, acc[q][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < R; ++q) {
    float* yq = yrow + q * ow + j;
#pragma GCC unroll 8
    for (int v = 0; v < NV - 1; ++v) Vec::Store(yq + kW * v, acc[q][v]);
    Vec::StoreFirst(yq + kW * (NV - 1), acc[q][NV - 1], last);
  }
}

// The last 1..NVB vectors of a row: NV = nv, chosen at compile time.
template <int R, int NV, int KW>
void Tail(const float* const* rows, const float* wk, int64_t nk, int64_t kw, int64_t j,
          int64_t last, float* yrow, int64_t ow, int64_t nv) {
  if constexpr (NV > 1) {
    if (nv < NV) {
      Tail<R, NV - 1, KW>(rows, wk, nk, kw, j, last, yrow, ow, nv);
      return;
    }
  }
  Block<R, NV, KW>(rows, wk, nk, kw, j, last, yrow, ow);
}

// R consecutive output rows, stride 1, all columns.
template <int R, int KW>
void RowsStride1(const float* const* rows, const float* wk, int64_t nk, int64_t kw,
                 int64_t ow, float* yrow) {
  int64_t j = 0;
  for (; ow - j > kNvb * kW; j += kNvb * kW)
    Block<R, kNvb, KW>(rows, wk, nk, kw, j, kW, yrow, ow);
  const int64_t left = ow - j;  // 1 .. kNvb vectors left
  const int64_t nv = (left + kW - 1) / kW;
  Tail<R, kNvb, KW>(rows, wk, nk, kw, j, left - kW * (nv - 1), yrow, ow, nv);
}
#else
template <int R, int KW>
void RowsStride1(const float* const* rows, const float* wk, int64_t nk, int64_t kw,
                 int64_t ow, float* yrow) {
  for (int q = 0; q < R; ++q) RowScalar(rows + q, wk, nk, kw, 1, ow, yrow + q * ow);
}
#endif

// Dispatch on the kernel width so 3 and 5 get compile-time (register-shifted) taps.
template <int R>
void RowsStride1Any(const float* const* rows, const float* wk, int64_t nk, int64_t kw,
                    int64_t ow, float* yrow) {
  if (kw == 3) RowsStride1<R, 3>(rows, wk, nk, kw, ow, yrow);
  else if (kw == 5) RowsStride1<R, 5>(rows, wk, nk, kw, ow, yrow);
  else RowsStride1<R, 0>(rows, wk, nk, kw, ow, yrow);
}

}  // namespace

extern "C" void depthwise_conv2d(const float* x, const float* w, float* y, int64_t n,
                                 int64_t c, int64_t h, int64_t w_, int64_t kh, int64_t kw,
                                 int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - kh) / stride + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / stride + 1;
  // Ring of kh + ROWS padded rows (input row ih lives in slot ih % slots), each starting on
  // a 64-byte boundary. Everything except the middle w_ values of each row is zeroed once
  // here and never overwritten.
  const int64_t slots = kh + kRows;
  const int64_t rs = (w_ + 2 * pad + kSlack + 15) / 16 * 16;  // row stride, 64-byte multiple
  std::vector<float> ring_storage(static_cast<size_t>(slots * rs + 16), 0.0f);
  float* ring = ring_storage.data();
  ring += ((64 - reinterpret_cast<uintptr_t>(ring) % 64) % 64) / sizeof(float);
  std::vector<const float*> rows(static_cast<size_t>(slots));

  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* xp = x + (b * c + ch) * h * w_;
      const float* wp = w + ch * kh * kw;
      float* yp = y + (b * c + ch) * oh * ow;
      int64_t next_row = 0;  // next input row to copy into the ring
      for (int64_t i = 0; i < oh;) {
        // Kernel rows whose input row is inside the image: [ki_lo, ki_hi).
        const int64_t ih0 = i * stride - pad;
        const int64_t ki_lo = std::max<int64_t>(0, -ih0);
        const int64_t ki_hi = std::min<int64_t>(kh, h - ih0);
        const int64_t nk = std::max<int64_t>(0, ki_hi - ki_lo);
        // Stride 1 and rows i .. i+ROWS-1 all fully inside: one block (kh+ROWS-1 rows).
        const bool group = kRows > 1 && stride == 1 && i + kRows - 1 < oh && ki_lo == 0 &&
                           ih0 + kh + kRows - 2 < h;
        const int64_t first = ih0 + ki_lo;
        const int64_t count = group ? kh + kRows - 1 : nk;
        // Copy rows not in the ring yet. Rows no output row uses (stride > kh) are
        // skipped; a pass needs at most kh+ROWS-1 rows, so nothing still needed is
        // overwritten.
        next_row = std::max(next_row, first);
        for (; next_row < first + count; ++next_row) {
          std::memcpy(ring + (next_row % slots) * rs + pad, xp + next_row * w_,
                      sizeof(float) * static_cast<size_t>(w_));
        }
        int64_t slot = count > 0 ? first % slots : 0;
        for (int64_t r = 0; r < count; ++r) {
          rows[static_cast<size_t>(r)] = ring + slot * rs;
          slot = slot + 1 == slots ? 0 : slot + 1;
        }
        float* yrow = yp + i * ow;
        if (group) {
          RowsStride1Any<kRows>(rows.data(), wp, kh, kw, ow, yrow);
          i += kRows;
        } else {
          if (stride == 1) {
            RowsStride1Any<1>(rows.data(), wp + ki_lo * kw, nk, kw, ow, yrow);
          } else {
            RowScalar(rows.data(), wp + ki_lo * kw, nk, kw, stride, ow, yrow);
          }
          i += 1;
        }
      }
    }
  }
}
