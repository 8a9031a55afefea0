#include "cannbot/validator/fresh_values.h"

#include <immintrin.h>

#include <cmath>

// This file is compiled at -O3 without sanitizers in every build (CMakeLists.txt): it runs on
// every input of every timed round, and the sanitized -Og test build would otherwise spend its
// perf gates here.

namespace cannbot::validator {
namespace {

constexpr int kSegments = 4096;  // of the inverse normal CDF; 2^12, so positions are exact

// A 32-bit finaliser (lowbias32). Draw32 mixes counter `i` with the key's low word, then the
// key's high word into that.
inline uint32_t Mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352dU;
  h ^= h >> 15;
  h *= 0x846ca68bU;
  h ^= h >> 16;
  return h;
}

inline uint32_t Draw32(uint32_t key_lo, uint32_t key_hi, uint32_t i) {
  return Mix32(Mix32(i * 0x9e3779b1U ^ key_lo) + key_hi);
}

// The standard normal quantile at p, by bisection on erfc: slow and exact, run once per
// table entry.
double NormalQuantile(double p) {
  double lo = -40, hi = 40;
  for (int k = 0; k < 120; ++k) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Draws (24-bit, of 2^24) per segment. A draw in the first or last segment, where the
// quantile bends most, takes its exact value from `tail` (those segments hold 4096 draws each).
constexpr uint32_t kDrawsPerSegment = (1u << 24) / kSegments;

struct QuantileTable {
  float at[kSegments + 1];
  float tail[kDrawsPerSegment];  // the quantile of draw d < kDrawsPerSegment, exactly
  QuantileTable() {
    for (uint32_t d = 0; d < kDrawsPerSegment; ++d) {
      tail[d] = static_cast<float>(NormalQuantile((d + 0.5) / (1 << 24)));
    }
    at[0] = tail[0];
    at[kSegments] = -tail[0];
    for (int j = 1; j < kSegments; ++j) at[j] = static_cast<float>(NormalQuantile(double(j) / kSegments));
  }
};

const QuantileTable& Quantiles() {
  static const QuantileTable table;  // built once; C++11 statics are thread-safe
  return table;
}

// The standard normal value of a 32-bit draw: its top 24 bits' (d + 1/2) / 2^24 quantile,
// interpolated in the table, exact in the two extreme segments.
inline float StandardNormal(uint32_t h, const QuantileTable& q) {
  const uint32_t d = h >> 8;
  if (d < kDrawsPerSegment) return q.tail[d];
  if (d >= (1u << 24) - kDrawsPerSegment) return -q.tail[(1u << 24) - 1 - d];
  // (d + 1/2) / 2^24 * 4096: exact in float.
  const float pos = (static_cast<float>(d) + 0.5f) * (kSegments * 0x1p-24f);
  const int j = static_cast<int>(pos);
  const float f = pos - static_cast<float>(j);
  return q.at[j] + f * (q.at[j + 1] - q.at[j]);
}

// Mix32 and Draw32 on eight lanes.
__attribute__((target("avx2"))) inline __m256i Mix32x8(__m256i h) {
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
  h = _mm256_mullo_epi32(h, _mm256_set1_epi32(0x7feb352d));
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 15));
  h = _mm256_mullo_epi32(h, _mm256_set1_epi32(static_cast<int>(0x846ca68bU)));
  return _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
}

__attribute__((target("avx2"))) inline __m256i Draw32x8(__m256i index, uint64_t key) {
  const __m256i golden = _mm256_set1_epi32(static_cast<int>(0x9e3779b1U));
  const __m256i h = Mix32x8(_mm256_xor_si256(_mm256_mullo_epi32(index, golden),
                                             _mm256_set1_epi32(static_cast<int>(key))));
  return Mix32x8(_mm256_add_epi32(h, _mm256_set1_epi32(static_cast<int>(key >> 32))));
}

__attribute__((target("avx2"))) void FillNormalAvx2(float* out, int64_t n, uint64_t key,
                                                    float mean, float sd) {
  const QuantileTable& q = Quantiles();
  const __m256 scale = _mm256_set1_ps(kSegments * 0x1p-24f), half = _mm256_set1_ps(0.5f);
  const __m256 vmean = _mm256_set1_ps(mean), vsd = _mm256_set1_ps(sd);
  const __m256i low_end = _mm256_set1_epi32(kDrawsPerSegment);                // d < it: tail
  const __m256i high_end = _mm256_set1_epi32((1 << 24) - kDrawsPerSegment - 1);  // d > it: tail
  __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i eight = _mm256_set1_epi32(8);
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8, index = _mm256_add_epi32(index, eight)) {
    const __m256i d = _mm256_srli_epi32(Draw32x8(index, key), 8);
    const __m256 pos = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(d), half), scale);
    const __m256i j = _mm256_cvttps_epi32(pos);
    const __m256 f = _mm256_sub_ps(pos, _mm256_cvtepi32_ps(j));
    const __m256 below = _mm256_i32gather_ps(q.at, j, 4);
    const __m256 above = _mm256_i32gather_ps(q.at + 1, j, 4);
    __m256 z = _mm256_add_ps(below, _mm256_mul_ps(f, _mm256_sub_ps(above, below)));
    const __m256i in_tail = _mm256_or_si256(_mm256_cmpgt_epi32(low_end, d),
                                            _mm256_cmpgt_epi32(d, high_end));
    if (_mm256_movemask_epi8(in_tail) != 0) {  // rare: 1 draw in 2048, all lanes redone
      alignas(32) float lanes[8];
      for (int k = 0; k < 8; ++k) {
        lanes[k] = StandardNormal(Draw32(klo, khi, static_cast<uint32_t>(i + k)), q);
      }
      z = _mm256_load_ps(lanes);
    }
    _mm256_storeu_ps(out + i, _mm256_add_ps(vmean, _mm256_mul_ps(vsd, z)));
  }
  for (; i < n; ++i) out[i] = mean + sd * StandardNormal(Draw32(klo, khi, static_cast<uint32_t>(i)), q);
}

__attribute__((target("avx2"))) void FillUniformAvx2(float* out, int64_t n, uint64_t key,
                                                     float a, float b, float below_b) {
  const __m256 va = _mm256_set1_ps(a), top = _mm256_set1_ps(below_b);
  const __m256 width = _mm256_set1_ps(b - a), unit = _mm256_set1_ps(0x1p-24f);
  __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i eight = _mm256_set1_epi32(8);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8, index = _mm256_add_epi32(index, eight)) {
    const __m256i h = Draw32x8(index, key);
    const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(h, 8)), unit);
    const __m256 v = _mm256_add_ps(va, _mm256_mul_ps(width, u));
    _mm256_storeu_ps(out + i, _mm256_blendv_ps(v, top, _mm256_cmp_ps(v, top, _CMP_GT_OQ)));
  }
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  for (; i < n; ++i) {
    const float u = static_cast<float>(Draw32(klo, khi, static_cast<uint32_t>(i)) >> 8) * 0x1p-24f;
    const float v = a + (b - a) * u;
    out[i] = v > below_b ? below_b : v;
  }
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

}  // namespace

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t FreshKey(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  return SplitMix64(SplitMix64(SplitMix64(SplitMix64(seed ^ 0x66726573ULL) ^ a) ^ b) ^ c);
}

uint64_t FreshWord(uint64_t key, int64_t i) {
  return SplitMix64(key ^ SplitMix64(static_cast<uint64_t>(i)));
}

void FillNormalPortable(float* out, int64_t n, uint64_t key, float mean, float sd) {
  const QuantileTable& q = Quantiles();
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = mean + sd * StandardNormal(Draw32(klo, khi, static_cast<uint32_t>(i)), q);
  }
}

void FillUniformPortable(float* out, int64_t n, uint64_t key, float a, float b, float below_b) {
  const uint32_t klo = static_cast<uint32_t>(key), khi = static_cast<uint32_t>(key >> 32);
  const float width = b - a;
  for (int64_t i = 0; i < n; ++i) {
    const float u = static_cast<float>(Draw32(klo, khi, static_cast<uint32_t>(i)) >> 8) * 0x1p-24f;
    const float v = a + width * u;
    out[i] = v > below_b ? below_b : v;
  }
}

void FillNormal(float* out, int64_t n, uint64_t key, float mean, float sd) {
  if (HasAvx2()) return FillNormalAvx2(out, n, key, mean, sd);
  FillNormalPortable(out, n, key, mean, sd);
}

void FillUniform(float* out, int64_t n, uint64_t key, float a, float b, float below_b) {
  if (HasAvx2()) return FillUniformAvx2(out, n, key, a, b, below_b);
  FillUniformPortable(out, n, key, a, b, below_b);
}

}  // namespace cannbot::validator
