// What `cannbot suggest examples/conv2d/naive.cpp --op conv2d` found offline on an AVX-512
// machine (recipe conv2d-direct-tiled (TILE=83 ORDER=0)),
// validated at 55.4x the naive kernel.
// instantiated from recipe conv2d-direct-tiled: TILE=83 ORDER=0
#define TILE 83
#define ORDER 0
// cannbot-recipe
// name: conv2d-direct-tiled
// op: conv2d
// summary: im2col-free direct conv as implicit GEMM: output channels x flattened output pixels register tile, strides via phase planes, masked compress stores
// params: TILE=83,46,161,122 ORDER=0,1
// ---
// Direct convolution, NCHW, zero padding, with bias, fp32 accumulation.
//
// Techniques:
//  * Implicit GEMM without im2col: M = output channels, N = output pixels, K = c*kh*kw.
//    The input is copied once per image into zero-padded planes (no bounds checks in any
//    inner loop). For stride 1 an output pixel (oy, ox) reads padded element
//    (oy + ki) * Wp + (ox + kj): with the output indexed on the padded-width grid
//    q = oy * Wp + ox, tap (ci, ki, kj) of 16 consecutive q is ONE contiguous vector at
//    q + off[ci, ki, kj]. Rows need not be handled separately; the Wp - ow grid columns
//    per row that are not outputs are computed and never stored (2 of 58 at 56 x 56).
//  * Other strides: the padded input is split into stride x stride phase planes
//    (space-to-depth), plane (pi, pj) holding padded rows pi, pi+s, ... and columns
//    pj, pj+s, ...; tap (ki, kj) then reads plane (ki % s, kj % s) at
//    (oy + ki / s, ox + kj / s): again contiguous in ox, so every stride uses the same
//    vector kernel.
//  * Register tile: TILE = OB x NV (e.g. 83 = 8 output channels x 3 vectors of 16
//    pixels): 24 zmm accumulators; each k step loads NV input vectors and broadcasts OB
//    weights (folded into the FMA), OB * NV FMAs: compute bound. Weights are packed per
//    channel block as [K][OB], zero padded past k.
//  * Epilogue: bias is the accumulators' start value; the store keeps only grid columns
//    ox < ow. The kept lanes of a vector are consecutive outputs, so AVX-512 compresses
//    them (vcompressps, register form) and does one masked store; full vectors are
//    plain stores.
//  * ORDER 0: pixel tile outer, channel blocks inner (the input window stays in L1 and
//    is reused by every channel block). ORDER 1: channel block outer (its packed weights
//    stay in L1).
//  * Deterministic: the summation order is (ci, ki, kj), fixed by the sizes only.
#ifndef TILE
#define TILE 83
#endif
#ifndef ORDER
#define ORDER 0
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace {

#if defined(__AVX512F__)
constexpr int kL = 16;
constexpr int kOB = TILE / 10;
constexpr int kNV = TILE % 10;
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kL = 8;
constexpr int kOB = 4;
constexpr int kNV = 3;
#else
constexpr int kL = 8;  // portable: 4 x 8 floats = 8 SSE accumulators (4 x 16 spills)
constexpr int kOB = 4;
constexpr int kNV = 1;
#endif
static_assert(kOB >= 1 && kNV >= 1, "TILE must be OB*10 + NV with OB, NV >= 1");
constexpr int kTQ = kL * kNV;  // grid pixels per tile

// Where the kept lanes of one vector of kL grid pixels go: lanes in `mask` are outputs,
// stored to consecutive positions starting at `dst` (an offset in the output plane).
struct Lanes {
  uint32_t mask;
  int32_t count;
  int64_t dst;
};

#if defined(__AVX512F__)
void Tile(const float* xq, const int64_t* off, int64_t kk, const float* wp, const float* init,
          float* y, int64_t plane, int valid_o, const Lanes* lanes) {
  __m512 acc[kOB][kNV];
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o) {
    const __m512 b = _mm512_set1_ps(init[o]);
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) acc[o][v] = b;
  }
  for (int64_t t = 0; t < kk; ++t) {
    const float* src = xq + off[t];
    const float* wt = wp + t * kOB;
    __m512 xv[kNV];
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) xv[v] = _mm512_loadu_ps(src + kL * v);
#pragma GCC unroll 16
    for (int o = 0; o < kOB; ++o) {
      const __m512 wv = _mm512_set1_ps(wt[o]);
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) acc[o][v] = _mm512_fmadd_ps(wv, xv[v], acc[o][v]);
    }
  }
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o) {
    if (o >= valid_o) break;
    float* yo = y + o * plane;
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) {
      const Lanes& ln = lanes[v];
      if (ln.mask == 0xFFFFu) {
        _mm512_storeu_ps(yo + ln.dst, acc[o][v]);
      } else if (ln.count > 0) {
        const __m512 packed = _mm512_maskz_compress_ps(static_cast<__mmask16>(ln.mask), acc[o][v]);
        _mm512_mask_storeu_ps(yo + ln.dst, static_cast<__mmask16>((1u << ln.count) - 1u), packed);
      }
    }
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
void Tile(const float* xq, const int64_t* off, int64_t kk, const float* wp, const float* init,
          float* y, int64_t plane, int valid_o, const Lanes* lanes) {
  __m256 acc[kOB][kNV];
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o) {
    const __m256 b = _mm256_set1_ps(init[o]);
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) acc[o][v] = b;
  }
  for (int64_t t = 0; t < kk; ++t) {
    const float* src = xq + off[t];
    const float* wt = wp + t * kOB;
    __m256 xv[kNV];
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) xv[v] = _mm256_loadu_ps(src + kL * v);
#pragma GCC unroll 16
    for (int o = 0; o < kOB; ++o) {
      const __m256 wv = _mm256_broadcast_ss(wt + o);
#pragma GCC unroll 8
      for (int v = 0; v < kNV; ++v) acc[o][v] = _mm256_fmadd_ps(wv, xv[v], acc[o][v]);
    }
  }
  alignas(32) float tmp[kL];
#pragma GCC unroll 16
  for (int o = 0; o < kOB; ++o) {
    if (o >= valid_o) break;
    float* yo = y + o * plane;
#pragma GCC unroll 8
    for (int v = 0; v < kNV; ++v) {
      const Lanes& ln = lanes[v];
      if (ln.mask == 0xFFu) {
        _mm256_storeu_ps(yo + ln.dst, acc[o][v]);
      } else if (ln.count > 0) {
        _mm256_store_ps(tmp, acc[o][v]);
        int64_t d = ln.dst;
        for (int l = 0; l < kL; ++l)
          if (ln.mask >> l & 1u) yo[d++] = tmp[l];
      }
    }
  }
}
#else
// Portable: fixed-size arrays the compiler keeps in (SSE) registers.
void Tile(const float* xq, const int64_t* off, int64_t kk, const float* wp, const float* init,
          float* y, int64_t plane, int valid_o, const Lanes* lanes) {
  float acc[kOB][kTQ];
  for (int o = 0; o < kOB; ++o)
    for (int p = 0; p < kTQ; ++p) acc[o][p] = init[o];
  for (int64_t t = 0; t < kk; ++t) {
    const float* src = xq + off[t];
    const float* wt = wp + t * kOB;
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
        if (ln.mask >> l & 1u) yo[d++] = acc[o][kL * v + l];
    }
  }
}
#endif

}  // namespace

extern "C" void conv2d(const float* x, const float* w, const float* bias, float* y,
                       int64_t n, int64_t c, int64_t h, int64_t w_, int64_t k, int64_t kh,
                       int64_t kw, int64_t stride, int64_t pad) {
  const int64_t s = stride;
  const int64_t oh = (h + 2 * pad - kh) / s + 1;
  const int64_t ow = (w_ + 2 * pad - kw) / s + 1;
  const int64_t hp = h + 2 * pad, wp_ = w_ + 2 * pad;  // padded image
  const int64_t hq = (hp + s - 1) / s, wq = (wp_ + s - 1) / s;  // one phase plane
  const int64_t ps = (hq * wq + 15) / 16 * 16 + 16;  // phase plane stride (floats)
  const int64_t planes = c * s * s;
  const int64_t grid = oh * wq;  // output pixels on the phase-plane grid
  const int64_t tiles = (grid + kTQ - 1) / kTQ;
  const int64_t kk = c * kh * kw;
  const int64_t blocks = (k + kOB - 1) / kOB;
  const int64_t out_plane = oh * ow;

  // Tap offsets into the phase planes, in the weights' (ci, ki, kj) order.
  std::vector<int64_t> off(static_cast<size_t>(kk));
  int64_t max_off = 0;
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t ki = 0; ki < kh; ++ki)
      for (int64_t kj = 0; kj < kw; ++kj) {
        const int64_t o = (ci * s * s + (ki % s) * s + kj % s) * ps + (ki / s) * wq + kj / s;
        off[static_cast<size_t>((ci * kh + ki) * kw + kj)] = o;
        max_off = std::max(max_off, o);
      }
  // Packed weights [block][t][kOB] and start values (bias), zero padded past k.
  std::vector<float> wpk(static_cast<size_t>(blocks * kk * kOB), 0.0f);
  std::vector<float> init(static_cast<size_t>(blocks * kOB), 0.0f);
  for (int64_t o = 0; o < k; ++o) {
    float* dst = wpk.data() + (o / kOB) * kk * kOB + o % kOB;
    for (int64_t t = 0; t < kk; ++t) dst[t * kOB] = w[o * kk + t];
    init[static_cast<size_t>(o)] = bias[o];
  }
  // Lanes of every grid vector: which are outputs and where they go.
  std::vector<Lanes> lanes(static_cast<size_t>(tiles * kNV));
  for (int64_t vi = 0; vi < tiles * kNV; ++vi) {
    Lanes ln{0u, 0, 0};
    for (int l = 0; l < kL; ++l) {
      const int64_t q = vi * kL + l;
      if (q >= grid) break;
      const int64_t oy = q / wq, ox = q % wq;
      if (ox >= ow) continue;
      if (ln.count == 0) ln.dst = oy * ow + ox;
      ln.mask |= 1u << l;
      ++ln.count;
    }
    lanes[static_cast<size_t>(vi)] = ln;
  }
  // Phase planes, zero padded; vectors of the last tile and grid columns >= ow may read
  // up to max_off + tiles * kTQ, so the buffer extends past the last plane (zeros).
  const int64_t buf_size = std::max(planes * ps, max_off + tiles * kTQ) + kL;
  std::vector<float> buf(static_cast<size_t>(buf_size), 0.0f);

  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const float* src = x + (b * c + ci) * h * w_;
      for (int64_t r = 0; r < h; ++r) {
        const int64_t pr = r + pad;
        float* prow = buf.data() + (ci * s * s + (pr % s) * s) * ps + (pr / s) * wq;
        if (s == 1) {
          std::memcpy(prow + pad, src + r * w_, sizeof(float) * static_cast<size_t>(w_));
        } else {
          for (int64_t col = 0; col < w_; ++col) {
            const int64_t pc = col + pad;
            prow[(pc % s) * ps + pc / s] = src[r * w_ + col];
          }
        }
      }
    }
    float* yb = y + b * k * out_plane;
#if ORDER == 0
    for (int64_t tile = 0; tile < tiles; ++tile) {
      for (int64_t blk = 0; blk < blocks; ++blk) {
#else
    for (int64_t blk = 0; blk < blocks; ++blk) {
      for (int64_t tile = 0; tile < tiles; ++tile) {
#endif
        Tile(buf.data() + tile * kTQ, off.data(), kk, wpk.data() + blk * kk * kOB,
             init.data() + blk * kOB, yb + blk * kOB * out_plane, out_plane,
             static_cast<int>(std::min<int64_t>(kOB, k - blk * kOB)), lanes.data() + tile * kNV);
      }
    }
  }
}
