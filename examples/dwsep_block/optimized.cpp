// What `cannbot suggest examples/dwsep_block/naive.cpp --op dwsep_block` found offline on an AVX-512
// machine (recipe dwsep_block-strip-fused (MIDF=65536 PWTILE=161 DWNV=4 DWROWS=2)),
// validated at 26.4x the naive kernel.
// instantiated from recipe dwsep_block-strip-fused: MIDF=65536 PWTILE=161 DWNV=4 DWROWS=2
#define MIDF 65536
#define PWTILE 161
#define DWNV 4
#define DWROWS 2
// cannbot-recipe
// name: dwsep_block-strip-fused
// op: dwsep_block
// summary: one mega-kernel per strip of output rows: depthwise + BN1 + ReLU into a cache-resident strip, then the 1x1 conv as a register-tiled GEMM with BN2 + ReLU in the epilogue
// params: MIDF=32768,65536,16384 PWTILE=83,161,122 DWNV=4,2,3 DWROWS=2,4,1
// ---
// Depthwise-separable block (dwconv -> BN -> ReLU -> 1x1 conv -> BN -> ReLU), inference,
// NCHW, fp32, as one kernel that walks the output strip by strip.
//
// Techniques:
//  * Both BNs folded once per call in double: s = gamma / sqrt(var + eps),
//    t = beta - mean * s. BN1 + ReLU is one FMA and one max applied as the depthwise
//    result leaves the registers; BN2 + ReLU the same in the pointwise epilogue. BN1 is
//    not folded into the pointwise weights: the ReLU sits between them.
//  * Strips: R output rows of all channels at a time, R chosen so the intermediate
//    m[c][R * ow] holds about MIDF floats (32768 = 128 KB, L2-resident; the pointwise
//    weights stay in L1/L2 too). The intermediate never round-trips through a full
//    tensor: it is produced and consumed strip by strip.
//  * Per strip and channel the input rows it needs (R + kh - 1 at stride 1, halo
//    included) are copied into zero-padded rows, so no tap needs a bounds check.
//  * Stride 1 (vector builds): depthwise in register blocks of DWROWS output rows x DWNV
//    vectors of 16 columns; each input row is loaded once for every output row it feeds.
//    For kw 3 and 5 (AVX-512) rows are read with aligned loads and the kw shifted copies
//    are made in registers (valignd): an unaligned 64-byte load always splits two cache
//    lines. The intermediate is compact ([c][R * ow]), so the pointwise GEMM wastes no
//    lanes and its stores are contiguous.
//  * Other strides (and the portable build): the padded rows are split into stride x
//    stride phase planes (space-to-depth), so tap (ki, kj) reads plane (ki % s, kj % s)
//    at (r + ki / s, ox + kj / s), contiguous along ox. Outputs are indexed on a
//    flattened grid q = r * Wq + ox, tap t of 16 consecutive q being one vector at
//    q + off[t]; grid columns >= ow are computed and dropped at the final store, where
//    AVX-512 compresses the kept lanes (vcompressps, register form) into a masked store.
//  * Pointwise: GEMM M = k, N = strip pixels, K = c with a PWTILE = OB x NV register tile
//    (83 = 8 output channels x 3 vectors, 24 zmm accumulators; 161 = 16 x 1), weights
//    packed [block][ch][OB], zero padded past k.
//  * AVX2 (4 x 3 ymm pointwise tile) and portable (4 x 8 floats) paths share the driver;
//    results are deterministic (summation order fixed by the shape).
#ifndef MIDF
#define MIDF 32768
#endif
#ifndef PWTILE
#define PWTILE 83
#endif
#ifndef DWNV
#define DWNV 4
#endif
#ifndef DWROWS
#define DWROWS 2
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

#if defined(__AVX512F__)
constexpr int kL = 16;
constexpr int kOB = PWTILE / 10;
constexpr int kNV = PWTILE % 10;
constexpr int kDV = DWNV;
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kL = 8;
constexpr int kOB = 4;
constexpr int kNV = 3;
constexpr int kDV = DWNV;
#else
constexpr int kL = 8;
constexpr int kOB = 4;
constexpr int kNV = 1;
constexpr int kDV = 2;
#endif
static_assert(kOB >= 1 && kNV >= 1 && kDV >= 1, "bad tile parameters");
constexpr int kDwRows = DWROWS;
static_assert(kDwRows >= 1, "DWROWS must be >= 1");
constexpr int kTQ = kL * kNV;  // grid pixels per pointwise tile
constexpr int kDQ = kL * kDV;  // grid pixels per depthwise pass

// Where the kept lanes of one vector of kL grid pixels go: lanes in `mask` are outputs,
// stored to consecutive positions from `dst` (offset in the output plane).
struct Lanes {
  uint32_t mask;
  int32_t count;
  int64_t dst;
};

// Depthwise for one channel over grid pixels [0, qn) of the strip, BN1 + ReLU, into mid.
// pb: the channel's phase planes; off: kh*kw tap offsets; f: the filter.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#if defined(__AVX512F__)
using V = __m512;
inline V VZero() { return _mm512_setzero_ps(); }
inline V VSet(float a) { return _mm512_set1_ps(a); }
inline V VLoad(const float* p) { return _mm512_loadu_ps(p); }
inline void VStore(float* p, V a) { _mm512_storeu_ps(p, a); }
inline V VFma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
inline V VMax(V a, V b) { return _mm512_max_ps(a, b); }
inline void VStoreFirst(float* p, V a, int64_t valid) {  // lanes [0, valid) only
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>(0xFFFFu >> (16 - valid)), a);
}
// Lanes k..k+15 of the 32-lane concatenation a1:a0 (the row shifted by k), k in 0..4.
template <int K>
inline V Shift(V a0, V a1) {
  return _mm512_castsi512_ps(
      _mm512_alignr_epi32(_mm512_castps_si512(a1), _mm512_castps_si512(a0), K));
}
inline V ShiftBy(V a0, V a1, int k) {
  switch (k) {
    case 0: return a0;
    case 1: return Shift<1>(a0, a1);
    case 2: return Shift<2>(a0, a1);
    case 3: return Shift<3>(a0, a1);
    default: return Shift<4>(a0, a1);
  }
}
#else
using V = __m256;
inline V VZero() { return _mm256_setzero_ps(); }
inline V VSet(float a) { return _mm256_set1_ps(a); }
inline V VLoad(const float* p) { return _mm256_loadu_ps(p); }
inline void VStore(float* p, V a) { _mm256_storeu_ps(p, a); }
inline V VFma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
inline V VMax(V a, V b) { return _mm256_max_ps(a, b); }
inline void VStoreFirst(float* p, V a, int64_t valid) {
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(valid)),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  _mm256_maskstore_ps(p, m, a);
}
#endif

// Stride-1 depthwise: R output rows x NV vectors from column j. rows[t], t < kh + R - 1,
// are 64-byte aligned zero-padded input rows (input row t feeds output row q through
// kernel row t - q, so each row is loaded once for up to kh output rows). Output row q
// goes to out + q * ow, BN1 + ReLU applied; `last` = valid lanes of the last vector.
// KW > 0: kw known at compile time; on AVX-512 the rows are then read with aligned loads
// only and the kw shifted copies made in registers (valignd), as an unaligned 64-byte
// load always splits two cache lines.
template <int R, int NV, int KW>
void DwBlock(const float* const* rows, const float* f, int64_t kh, int64_t kw, int64_t j,
             int64_t last, float* out, int64_t ow, V vs, V vt) {
  V acc[R][NV];
#pragma GCC unroll 8
  for (int q = 0; q < R; ++q)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[q][v] = VZero();
  const int64_t kwc = KW > 0 ? KW : kw;
  for (int64_t t = 0; t < kh + R - 1; ++t) {
    const float* xr = rows[t] + j;
#if defined(__AVX512F__)
    constexpr bool kShift = KW > 0 && KW <= 5;
    V a[NV + 1];
    if constexpr (kShift) {
#pragma GCC unroll 8
      for (int v = 0; v <= NV; ++v) a[v] = _mm512_load_ps(xr + kL * v);
    }
#endif
#pragma GCC unroll 8
    for (int64_t kj = 0; kj < kwc; ++kj) {
      V xv[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
#if defined(__AVX512F__)
        if constexpr (kShift) {
          xv[v] = ShiftBy(a[v], a[v + 1], static_cast<int>(kj));
          continue;
        }
#endif
        xv[v] = VLoad(xr + kj + kL * v);
      }
#pragma GCC unroll 8
      for (int q = 0; q < R; ++q) {
        const int64_t ki = t - q;
        if (ki < 0 || ki >= kh) continue;
        const V wv = VSet(f[ki * kw + kj]);
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[q][v] = VFma(xv[v], wv, acc[q][v]);
      }
    }
  }
  const V zero = VZero();
#pragma GCC unroll 8
  for (int q = 0; q < R; ++q) {
    float* o = out + q * ow + j;
#pragma GCC unroll 8
    for (int v = 0; v < NV - 1; ++v) VStore(o + kL * v, VMax(VFma(acc[q][v], vs, vt), zero));
    VStoreFirst(o + kL * (NV - 1), VMax(VFma(acc[q][NV - 1], vs, vt), zero), last);
  }
}

// The last 1..kDV vectors of a row block: NV = nv, chosen at compile time.
template <int R, int NV, int KW>
void DwTail(const float* const* rows, const float* f, int64_t kh, int64_t kw, int64_t j,
            int64_t last, float* out, int64_t ow, V vs, V vt, int64_t nv) {
  if constexpr (NV > 1) {
    if (nv < NV) {
      DwTail<R, NV - 1, KW>(rows, f, kh, kw, j, last, out, ow, vs, vt, nv);
      return;
    }
  }
  DwBlock<R, NV, KW>(rows, f, kh, kw, j, last, out, ow, vs, vt);
}

// R output rows, all columns.
template <int R, int KW>
void DwRows(const float* const* rows, const float* f, int64_t kh, int64_t kw, int64_t ow,
            float* out, V vs, V vt) {
  int64_t j = 0;
  for (; ow - j > kDQ; j += kDQ) DwBlock<R, kDV, KW>(rows, f, kh, kw, j, kL, out, ow, vs, vt);
  const int64_t left = ow - j;  // 1 .. kDV vectors
  const int64_t nv = (left + kL - 1) / kL;
  DwTail<R, kDV, KW>(rows, f, kh, kw, j, left - kL * (nv - 1), out, ow, vs, vt, nv);
}

// One channel of a stride-1 strip: r output rows into out (pitch ow), in row blocks.
template <int KW>
void DwStrip1(const float* const* rows, const float* f, int64_t kh, int64_t kw, int64_t r,
              int64_t ow, float s1, float t1, float* out) {
  const V vs = VSet(s1), vt = VSet(t1);
  int64_t q = 0;
  for (; q + kDwRows <= r; q += kDwRows)
    DwRows<kDwRows, KW>(rows + q, f, kh, kw, ow, out + q * ow, vs, vt);
  for (; q < r; ++q) DwRows<1, KW>(rows + q, f, kh, kw, ow, out + q * ow, vs, vt);
}

void DwChannel(const float* pb, const int64_t* off, int64_t taps, const float* f, float s1,
               float t1, int64_t qn, float* mid) {
  const V vs = VSet(s1), vt = VSet(t1), zero = VZero();
  for (int64_t q = 0; q < qn; q += kDQ) {
    V acc[kDV];
#pragma GCC unroll 8
    for (int v = 0; v < kDV; ++v) acc[v] = zero;
    for (int64_t t = 0; t < taps; ++t) {
      const V wv = VSet(f[t]);
      const float* src = pb + off[t] + q;
#pragma GCC unroll 8
      for (int v = 0; v < kDV; ++v) acc[v] = VFma(wv, VLoad(src + kL * v), acc[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < kDV; ++v) VStore(mid + q + kL * v, VMax(VFma(acc[v], vs, vt), zero));
  }
}

// Pointwise tile: kOB output channels x kTQ grid pixels, K = c (mid rows of pitch mp).
void PwTile(const float* mq, int64_t mp, int64_t c, const float* wp, const float* s2,
            const float* t2, float* y, int64_t plane, int valid_o, const Lanes* lanes) {
  V acc[kOB][kNV];
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o)
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) acc[o][v] = VZero();
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* src = mq + ch * mp;
    const float* wt = wp + ch * kOB;
    V xv[kNV];
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) xv[v] = VLoad(src + kL * v);
#pragma GCC unroll 16
    for (int o = 0; o < kOB; ++o) {
      const V wv = VSet(wt[o]);
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) acc[o][v] = VFma(wv, xv[v], acc[o][v]);
    }
  }
  const V zero = VZero();
  alignas(64) float tmp[kL];
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o) {
    if (o >= valid_o) break;
    const V vs = VSet(s2[o]), vt = VSet(t2[o]);
    float* yo = y + o * plane;
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) {
      const V r = VMax(VFma(acc[o][v], vs, vt), zero);  // BN2 + ReLU
      const Lanes& ln = lanes[v];
      if (ln.mask == (1u << kL) - 1u) {
        VStore(yo + ln.dst, r);
      } else if (ln.count > 0) {
#if defined(__AVX512F__)
        const __m512 packed = _mm512_maskz_compress_ps(static_cast<__mmask16>(ln.mask), r);
        _mm512_mask_storeu_ps(yo + ln.dst, static_cast<__mmask16>((1u << ln.count) - 1u), packed);
        (void)tmp;
#else
        VStore(tmp, r);
        int64_t d = ln.dst;
        for (int l = 0; l < kL; ++l)
          if (ln.mask >> l & 1u) yo[d++] = tmp[l];
#endif
      }
    }
  }
}
#else
// Portable: fixed-size arrays the compiler keeps in (SSE) registers.
void DwChannel(const float* pb, const int64_t* off, int64_t taps, const float* f, float s1,
               float t1, int64_t qn, float* mid) {
  for (int64_t q = 0; q < qn; q += kDQ) {
    float acc[kDQ] = {};
    for (int64_t t = 0; t < taps; ++t) {
      const float wv = f[t];
      const float* src = pb + off[t] + q;
      for (int p = 0; p < kDQ; ++p) acc[p] += wv * src[p];
    }
    for (int p = 0; p < kDQ; ++p) mid[q + p] = std::max(acc[p] * s1 + t1, 0.0f);
  }
}

void PwTile(const float* mq, int64_t mp, int64_t c, const float* wp, const float* s2,
            const float* t2, float* y, int64_t plane, int valid_o, const Lanes* lanes) {
  float acc[kOB][kTQ] = {};
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* src = mq + ch * mp;
    const float* wt = wp + ch * kOB;
    for (int o = 0; o < kOB; ++o) {
      const float wv = wt[o];
      for (int p = 0; p < kTQ; ++p) acc[o][p] += wv * src[p];
    }
  }
  for (int o = 0; o < valid_o; ++o) {
    float* yo = y + o * plane;
    for (int v = 0; v < kNV; ++v) {
      const Lanes& ln = lanes[v];
      int64_t d = ln.dst;
      for (int l = 0; l < kL; ++l)
        if (ln.mask >> l & 1u) yo[d++] = std::max(acc[o][kL * v + l] * s2[o] + t2[o], 0.0f);
    }
  }
}
#endif

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

}  // namespace

extern "C" void dwsep_block(const float* x, const float* dw_w, const float* bn1_gamma,
                            const float* bn1_beta, const float* bn1_mean, const float* bn1_var,
                            const float* pw_w, const float* bn2_gamma, const float* bn2_beta,
                            const float* bn2_mean, const float* bn2_var, float* y, int64_t n,
                            int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh, int64_t kw,
                            int64_t stride, int64_t pad, float eps) {
  const int64_t s = stride;
  const int64_t oh = (h + 2 * pad - kh) / s + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / s + 1;
  const int64_t wp_ = w_ + 2 * pad;
  const int64_t wq = (wp_ + s - 1) / s;  // phase plane width
  const int64_t out_plane = oh * ow;
  const int64_t taps = kh * kw;
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
  const bool rows_path = s == 1;  // stride 1: row blocks, compact intermediate
#else
  const bool rows_path = false;
#endif
  // Grid width of the intermediate: compact (ow) on the row path; the phase-plane width
  // on the flattened path, whose columns >= ow are computed and dropped at the store.
  const int64_t gw = rows_path ? ow : wq;

  // Both BNs folded to scale/shift, in double, rounded once.
  const int64_t blocks = (k + kOB - 1) / kOB;
  std::vector<float> s1(static_cast<size_t>(c)), t1(static_cast<size_t>(c));
  std::vector<float> s2(static_cast<size_t>(blocks * kOB), 0.0f);
  std::vector<float> t2(static_cast<size_t>(blocks * kOB), 0.0f);
  for (int64_t i = 0; i < c; ++i) {
    const double sc = bn1_gamma[i] / std::sqrt(static_cast<double>(bn1_var[i]) + eps);
    s1[static_cast<size_t>(i)] = static_cast<float>(sc);
    t1[static_cast<size_t>(i)] = static_cast<float>(bn1_beta[i] - bn1_mean[i] * sc);
  }
  for (int64_t i = 0; i < k; ++i) {
    const double sc = bn2_gamma[i] / std::sqrt(static_cast<double>(bn2_var[i]) + eps);
    s2[static_cast<size_t>(i)] = static_cast<float>(sc);
    t2[static_cast<size_t>(i)] = static_cast<float>(bn2_beta[i] - bn2_mean[i] * sc);
  }
  // Pointwise weights packed [block][ch][kOB], zero padded past k.
  std::vector<float> pwp(static_cast<size_t>(blocks * c * kOB), 0.0f);
  for (int64_t o = 0; o < k; ++o)
    for (int64_t ch = 0; ch < c; ++ch)
      pwp[static_cast<size_t>(((o / kOB) * c + ch) * kOB + o % kOB)] = pw_w[o * c + ch];

  // Strip: R output rows of every channel; the intermediate m[c][R * gw] is ~MIDF floats.
  const int64_t rows = std::max<int64_t>(1, std::min<int64_t>(oh, MIDF / std::max<int64_t>(1, c * gw)));
  const int64_t grid_max = rows * gw;
  const int64_t mp = RoundUp(grid_max + std::max(kTQ, kDQ), 16);  // mid row pitch
  std::vector<float> mid(static_cast<size_t>(c * mp + 16), 0.0f);
  std::vector<Lanes> lanes(static_cast<size_t>(RoundUp(grid_max, kTQ) / kL));
  // Input strip buffer. Row path: R + kh - 1 zero-padded rows of stride rs, 64-byte
  // aligned. Flattened path: stride x stride phase planes of R + (kh - 1) / s rows of wq,
  // with room for the vectors that run past the last grid pixel. Pads stay zero.
  const int64_t rs = RoundUp(wp_ + kw + kL * (kDV + 2), 16);
  const int64_t strip_rows = rows + (kh - 1) / s;
  const int64_t sps = RoundUp(strip_rows * wq + mp + wq + 16, 16);  // phase plane stride
  const int64_t strip_size = rows_path ? (rows + kh - 1) * rs : s * s * sps;
  std::vector<float> strip_storage(static_cast<size_t>(strip_size + 32), 0.0f);
  float* strip = strip_storage.data();
  strip += ((64 - reinterpret_cast<uintptr_t>(strip) % 64) % 64) / sizeof(float);
  std::vector<const float*> row_ptr(static_cast<size_t>(rows + kh - 1));
  for (int64_t j = 0; j < rows + kh - 1; ++j) row_ptr[static_cast<size_t>(j)] = strip + j * rs;
  std::vector<int64_t> off(static_cast<size_t>(taps));
  for (int64_t ki = 0; ki < kh; ++ki)
    for (int64_t kj = 0; kj < kw; ++kj)
      off[static_cast<size_t>(ki * kw + kj)] =
          ((ki % s) * s + kj % s) * sps + (ki / s) * wq + kj / s;

  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oy0 = 0; oy0 < oh; oy0 += rows) {
      const int64_t r = std::min(rows, oh - oy0);
      const int64_t qn = r * gw;  // grid pixels of this strip
      const int64_t tiles = (qn + kTQ - 1) / kTQ;
      const int64_t in_rows = (r - 1) * s + kh;  // padded input rows the strip reads
      // 1. Depthwise + BN1 + ReLU for every channel into mid[ch][0, qn).
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* plane = x + (b * c + ch) * h * w_;
        const float* f = dw_w + ch * taps;
        float* m = mid.data() + ch * mp;
        for (int64_t j = 0; j < in_rows; ++j) {
          const int64_t iy = oy0 * s + j - pad;  // image row of padded strip row j
          const bool inside = iy >= 0 && iy < h;
          if (rows_path) {
            float* prow = strip + j * rs + pad;
            if (inside)
              std::memcpy(prow, plane + iy * w_, sizeof(float) * static_cast<size_t>(w_));
            else
              std::memset(prow, 0, sizeof(float) * static_cast<size_t>(w_));
          } else {
            float* prow = strip + ((j % s) * s) * sps + (j / s) * wq;
            for (int64_t col = 0; col < w_; ++col) {
              const int64_t pc = col + pad;
              prow[(pc % s) * sps + pc / s] = inside ? plane[iy * w_ + col] : 0.0f;
            }
          }
        }
        const float sc = s1[static_cast<size_t>(ch)], sh = t1[static_cast<size_t>(ch)];
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
        if (rows_path) {
          if (kw == 3) DwStrip1<3>(row_ptr.data(), f, kh, kw, r, ow, sc, sh, m);
          else if (kw == 5) DwStrip1<5>(row_ptr.data(), f, kh, kw, r, ow, sc, sh, m);
          else DwStrip1<0>(row_ptr.data(), f, kh, kw, r, ow, sc, sh, m);
          continue;
        }
#endif
        DwChannel(strip, off.data(), taps, f, sc, sh, qn, m);
      }
      // 2. Which grid lanes of this strip are outputs, and where they go.
      for (int64_t vi = 0; vi < tiles * kNV; ++vi) {
        Lanes ln{0u, 0, 0};
        for (int l = 0; l < kL; ++l) {
          const int64_t q = vi * kL + l;
          if (q >= qn) break;
          const int64_t oy = q / gw, ox = q % gw;
          if (ox >= ow) continue;
          if (ln.count == 0) ln.dst = (oy0 + oy) * ow + ox;
          ln.mask |= 1u << l;
          ++ln.count;
        }
        lanes[static_cast<size_t>(vi)] = ln;
      }
      // 3. Pointwise GEMM + BN2 + ReLU straight into y.
      float* yb = y + b * k * out_plane;
      for (int64_t tile = 0; tile < tiles; ++tile) {
        for (int64_t blk = 0; blk < blocks; ++blk) {
          PwTile(mid.data() + tile * kTQ, mp, c, pwp.data() + blk * c * kOB,
                 s2.data() + blk * kOB, t2.data() + blk * kOB, yb + blk * kOB * out_plane,
                 out_plane, static_cast<int>(std::min<int64_t>(kOB, k - blk * kOB)),
                 lanes.data() + tile * kNV);
        }
      }
    }
  }
}
