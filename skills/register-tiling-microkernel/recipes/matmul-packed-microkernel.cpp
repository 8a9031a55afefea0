// cannbot-recipe
// name: matmul-packed-microkernel
// op: matmul, matmul_bt, batched_matmul, matmul_f16_f32
// summary: GotoBLAS/BLIS nest: packed A and B panels, MR x NR register-tiled micro-kernel (AVX-512 14x32 default), KC/MC cache blocking, zero-padded edge tiles; B plain or transposed, batched, fp16 inputs widened once
// params: TILE=1432,848,664 KC=256,384,128 MC=168,336,84
// ---
// Matmul C[m,n] = A[m,k] * B[k,n], row-major fp32, fp32 accumulation; one algorithm for the
// matmul family's layouts, picked by the op it is instantiated for (CANNBOT_OP_<op>):
// matmul_bt keeps B as [n,k] (packing reads it along k), batched_matmul runs the nest per
// batch, matmul_f16_f32 widens its fp16 A and B to float once (F16C where the CPU has it:
// exact) and then runs the fp32 nest.
//
// Techniques (the classic GotoBLAS/BLIS structure):
//  * Register-tiled micro-kernel: an MR x NR tile of C lives in vector registers for a
//    whole KC-long slice of k. TILE = MR * 100 + NR (AVX-512): 1432 = 14 x 32
//    (28 zmm accumulators + 2 B vectors + 1 broadcast = 31 of 32 registers; per k step
//    2 vector loads of B, 14 broadcasts of A folded into the FMAs, 28 FMAs), 848 = 8 x 48
//    (24 accumulators, 3 B loads + 8 broadcasts per 24 FMAs), 664 = 6 x 64 (24
//    accumulators, 4 B loads + 6 broadcasts per 24 FMAs). NR must be a multiple of 16. The AVX2 tile is 6 x 16
//    (12 ymm accumulators), the portable one 4 x 8 floats (auto-vectorised).
//  * Packing: per KC slice, B is copied into NR-wide column panels and A into MR-tall row
//    panels, both in the exact order the micro-kernel reads them: two unit-stride streams,
//    no stride-n walks, no TLB or cache-set conflicts at power-of-two sizes.
//  * Cache blocking: a KC x NR panel of B (32 KB at 256 x 32) is reused from L1 by every MR
//    row panel of the packed MC x KC block of A (168 KB, L2); the KC x NC block of B is
//    reused across all of m. At 512^3 the sizes matter little (within a few percent).
//  * Remainders: packing pads panels with zeros, so the kernel always computes a full
//    tile; edge tiles go to a small scratch tile and only the valid part is copied. The
//    first KC slice overwrites C (C is never read before it is written), later slices
//    accumulate. Summation order depends on the sizes only: deterministic.
#ifndef TILE
#define TILE 1432
#endif
#ifndef KC
#define KC 256
#endif
#ifndef MC
#define MC 168
#endif

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__)) || defined(__F16C__)
#include <immintrin.h>
#endif

namespace {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr int kMR = TILE / 100;
constexpr int kNV = (TILE % 100) / 16;  // B vectors per k step
// MR * NV accumulators + NV B vectors + 1 broadcast must fit the 32 zmm registers.
static_assert(kMR * kNV + kNV + 1 <= 32, "TILE spills registers");
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kLanes = 8;
constexpr int kMR = 6;
constexpr int kNV = 2;
#else
constexpr int kLanes = 8;
constexpr int kMR = 4;
constexpr int kNV = 1;
#endif
static_assert(kMR >= 1 && kNV >= 1, "bad TILE");
constexpr int kNR = kLanes * kNV;
constexpr int64_t kKC = KC > 0 ? KC : 256;
constexpr int64_t kMC = (MC / kMR > 0 ? MC / kMR : 1) * kMR;  // multiple of MR
constexpr int64_t kNC = 2048 / kNR * kNR;                     // multiple of NR

// c (+)= Ap * Bp over kc steps for one MR x NR tile; ldc is the row stride of c.
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#if defined(__AVX512F__)
using V = __m512;
inline V VZero() { return _mm512_setzero_ps(); }
inline V VLoad(const float* p) { return _mm512_loadu_ps(p); }
inline V VBcast(const float* p) { return _mm512_set1_ps(*p); }  // {1to16} memory operand
inline void VStore(float* p, V a) { _mm512_storeu_ps(p, a); }
inline V VFma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
inline V VAdd(V a, V b) { return _mm512_add_ps(a, b); }
#else
using V = __m256;
inline V VZero() { return _mm256_setzero_ps(); }
inline V VLoad(const float* p) { return _mm256_loadu_ps(p); }
inline V VBcast(const float* p) { return _mm256_broadcast_ss(p); }
inline void VStore(float* p, V a) { _mm256_storeu_ps(p, a); }
inline V VFma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
inline V VAdd(V a, V b) { return _mm256_add_ps(a, b); }
#endif

void MicroKernel(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
                 bool accumulate) {
  V acc[kMR][kNV];
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) acc[i][v] = VZero();
  for (int64_t p = 0; p < kc; ++p) {
    V bv[kNV];
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) bv[v] = VLoad(bp + kLanes * v);
#pragma GCC unroll 16
    for (int i = 0; i < kMR; ++i) {
      const V a = VBcast(ap + i);
#pragma GCC unroll 4
      for (int v = 0; v < kNV; ++v) acc[i][v] = VFma(a, bv[v], acc[i][v]);
    }
    ap += kMR;
    bp += kNR;
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMR; ++i) {
    float* ci = c + i * ldc;
#pragma GCC unroll 4
    for (int v = 0; v < kNV; ++v) {
      V r = acc[i][v];
      if (accumulate) r = VAdd(r, VLoad(ci + kLanes * v));
      VStore(ci + kLanes * v, r);
    }
  }
}
#else
// Portable kernel: fixed-size arrays the compiler keeps in (SSE) registers.
void MicroKernel(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc,
                 bool accumulate) {
  float acc[kMR][kNR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < kMR; ++i) {
      const float a = ap[i];
      for (int j = 0; j < kNR; ++j) acc[i][j] += a * bp[j];
    }
    ap += kMR;
    bp += kNR;
  }
  for (int i = 0; i < kMR; ++i) {
    for (int j = 0; j < kNR; ++j)
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];
  }
}
#endif

// Rows [0, mc) x cols [0, kc) of A (row stride lda) -> MR-row panels, k-major; rows past
// mc padded with zeros.
void PackA(const float* a, int64_t lda, int64_t mc, int64_t kc, float* ap) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMR) {
    const int64_t rows = std::min<int64_t>(kMR, mc - i0);
    if (rows == kMR) {
      for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 16
        for (int r = 0; r < kMR; ++r) ap[r] = a[(i0 + r) * lda + p];
        ap += kMR;
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        for (int64_t r = 0; r < rows; ++r) ap[r] = a[(i0 + r) * lda + p];
        for (int64_t r = rows; r < kMR; ++r) ap[r] = 0.0f;
        ap += kMR;
      }
    }
  }
}

// Rows [0, kc) x cols [0, nc) of B -> NR-column panels, k-major; columns past nc padded
// with zeros. Element (p, j) of B is b[p * row_stride + j * col_stride]: col_stride 1 is
// the plain [k,n] layout (a panel row is one copy), row_stride 1 the transposed [n,k] one
// (a panel column is one contiguous read).
void PackB(const float* b, int64_t row_stride, int64_t col_stride, int64_t kc, int64_t nc,
           float* bp) {
  for (int64_t j0 = 0; j0 < nc; j0 += kNR) {
    const int64_t cols = std::min<int64_t>(kNR, nc - j0);
    if (col_stride == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + p * row_stride + j0;
        if (cols == kNR) {
          std::memcpy(bp + p * kNR, src, sizeof(float) * kNR);
        } else {
          for (int64_t j = 0; j < cols; ++j) bp[p * kNR + j] = src[j];
          for (int64_t j = cols; j < kNR; ++j) bp[p * kNR + j] = 0.0f;
        }
      }
    } else {
      for (int64_t j = 0; j < cols; ++j) {
        const float* src = b + (j0 + j) * col_stride;
        for (int64_t p = 0; p < kc; ++p) bp[p * kNR + j] = src[p * row_stride];
      }
      for (int64_t j = cols; j < kNR; ++j) {
        for (int64_t p = 0; p < kc; ++p) bp[p * kNR + j] = 0.0f;
      }
    }
    bp += kc * kNR;
  }
}

struct AlignedBuffer {
  explicit AlignedBuffer(int64_t floats)
      : p(static_cast<float*>(std::aligned_alloc(64, static_cast<size_t>((floats * 4 + 63) / 64 * 64)))) {}
  ~AlignedBuffer() { std::free(p); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  float* p;
};

int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// C[m,n] = A[m,k] * B with B's element (p, j) at b[p * b_row + j * b_col].
void Gemm(const float* a, const float* b, int64_t b_row, int64_t b_col, float* c, int64_t m,
          int64_t n, int64_t k) {
  const int64_t nc_max = std::min(kNC, RoundUp(n, kNR));
  const int64_t mc_max = std::min(kMC, RoundUp(m, kMR));
  const int64_t kc_max = std::min(kKC, k);
  AlignedBuffer bpack(kc_max * nc_max);  // per-call scratch, no global state
  AlignedBuffer apack(kc_max * mc_max);
  alignas(64) float edge[kMR * kNR];

  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min(kNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      const bool accumulate = pc > 0;  // the first k slice overwrites C
      PackB(b + pc * b_row + jc * b_col, b_row, b_col, kc, nc, bpack.p);
      for (int64_t ic = 0; ic < m; ic += kMC) {
        const int64_t mc = std::min(kMC, m - ic);
        PackA(a + ic * k + pc, k, mc, kc, apack.p);
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          const int64_t nr = std::min<int64_t>(kNR, nc - jr);
          const float* bp = bpack.p + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            const int64_t mr = std::min<int64_t>(kMR, mc - ir);
            const float* ap = apack.p + ir * kc;
            float* ct = c + (ic + ir) * n + jc + jr;
            if (mr == kMR && nr == kNR) {
              MicroKernel(kc, ap, bp, ct, n, accumulate);
            } else {
              // Edge tile: full tile into scratch, then copy/accumulate the valid part.
              MicroKernel(kc, ap, bp, edge, kNR, false);
              for (int64_t i = 0; i < mr; ++i) {
                for (int64_t j = 0; j < nr; ++j) {
                  const float v = edge[i * kNR + j];
                  ct[i * n + j] = accumulate ? ct[i * n + j] + v : v;
                }
              }
            }
          }
        }
      }
    }
  }
}

#if defined(CANNBOT_OP_matmul_f16_f32)
// count halves -> floats; F16C's vcvtph2ps is exact, as is the scalar conversion.
void Widen(const half* src, int64_t count, float* dst) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 8 <= count; i += 8) {
    _mm256_storeu_ps(dst + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
  }
#endif
  for (; i < count; ++i) dst[i] = static_cast<float>(src[i]);
}
#endif

}  // namespace

#if defined(CANNBOT_OP_matmul_bt)
extern "C" void matmul_bt(const float* a, const float* b, float* c, int64_t m, int64_t n,
                          int64_t k) {
  Gemm(a, b, 1, k, c, m, n, k);  // b is [n,k]: element (p, j) at b[j*k + p]
}
#elif defined(CANNBOT_OP_batched_matmul)
extern "C" void batched_matmul(const float* a, const float* b, float* c, int64_t batch,
                               int64_t m, int64_t n, int64_t k) {
  for (int64_t t = 0; t < batch; ++t) {
    Gemm(a + t * m * k, b + t * k * n, n, 1, c + t * m * n, m, n, k);
  }
}
#elif defined(CANNBOT_OP_matmul_f16_f32)
extern "C" void matmul_f16_f32(const half* a, const half* b, float* c, int64_t m, int64_t n,
                               int64_t k) {
  AlignedBuffer wide_a(m * k);
  AlignedBuffer wide_b(k * n);
  Widen(a, m * k, wide_a.p);
  Widen(b, k * n, wide_b.p);
  Gemm(wide_a.p, wide_b.p, n, 1, c, m, n, k);
}
#else
extern "C" void matmul(const float* a, const float* b, float* c, int64_t m, int64_t n,
                       int64_t k) {
  Gemm(a, b, n, 1, c, m, n, k);
}
#endif
