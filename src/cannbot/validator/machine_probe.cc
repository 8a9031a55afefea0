#include "cannbot/validator/machine_probe.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

namespace cannbot::validator {
namespace {

using ProbeClock = std::chrono::steady_clock;

// The kernels, once per ISA, written with intrinsics: GCC's generic wide vectors go through
// the stack on narrower units, and plain loops vectorise only at -O2 and above.
// Arrays are 64-byte aligned and their length a multiple of 4 * STEP.
#define CANNBOT_MEMORY_PROBES(ISA, TARGET, VEC, STEP, LOAD, STORE, STREAM, ADD, MUL, SET1, ZERO) \
  __attribute__((no_sanitize("address", "undefined"), noinline, target(TARGET))) float      \
      Read##ISA(const float* a, size_t n) {                                                 \
    /* Four streams (the array's quarters) at once: a single stream's prefetching leaves  \
       a core's read bandwidth unused, as a kernel reading several tensors does not. */   \
    VEC s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                                 \
    const size_t q = n / 4;                                                                 \
    for (size_t i = 0; i < q; i += STEP) {                                                  \
      s0 = ADD(s0, LOAD(a + i));                                                            \
      s1 = ADD(s1, LOAD(a + q + i));                                                        \
      s2 = ADD(s2, LOAD(a + 2 * q + i));                                                    \
      s3 = ADD(s3, LOAD(a + 3 * q + i));                                                    \
    }                                                                                       \
    alignas(64) float lanes[STEP];                                                          \
    STORE(lanes, ADD(ADD(s0, s1), ADD(s2, s3)));                                            \
    return lanes[0];                                                                        \
  }                                                                                         \
  /* b null: a copy of c; else the triad b + s*c. */                                        \
  __attribute__((no_sanitize("address", "undefined"), noinline, target(TARGET))) void       \
      Write##ISA(float* a, const float* b, const float* c, float s, size_t n, bool streaming) { \
    const VEC scale = SET1(s);                                                              \
    /* Four vectors an iteration: as many misses in flight as a tuned kernel keeps. */      \
    for (size_t i = 0; i < n; i += 4 * STEP) {                                              \
      for (size_t j = i; j < i + 4 * STEP; j += STEP) {                                     \
        const VEC x = LOAD(c + j);                                                          \
        const VEC y = b == nullptr ? x : ADD(LOAD(b + j), MUL(scale, x));                   \
        if (streaming) {                                                                    \
          STREAM(a + j, y);                                                                 \
        } else {                                                                            \
          STORE(a + j, y);                                                                  \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
    _mm_sfence();                                                                           \
  }
CANNBOT_MEMORY_PROBES(Avx512, "avx512f", __m512, 16, _mm512_load_ps, _mm512_store_ps,
                      _mm512_stream_ps, _mm512_add_ps, _mm512_mul_ps, _mm512_set1_ps,
                      _mm512_setzero_ps)
CANNBOT_MEMORY_PROBES(Avx, "avx", __m256, 8, _mm256_load_ps, _mm256_store_ps, _mm256_stream_ps,
                      _mm256_add_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_setzero_ps)
CANNBOT_MEMORY_PROBES(Sse, "sse2", __m128, 4, _mm_load_ps, _mm_store_ps, _mm_stream_ps,
                      _mm_add_ps, _mm_mul_ps, _mm_set1_ps, _mm_setzero_ps)
#undef CANNBOT_MEMORY_PROBES

struct MemoryProbes {
  float (*read)(const float* a, size_t n);
  void (*write)(float* a, const float* b, const float* c, float s, size_t n, bool streaming);
};

MemoryProbes WidestProbes() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {ReadAvx512, WriteAvx512};
  if (__builtin_cpu_supports("avx")) return {ReadAvx, WriteAvx};
  return {ReadSse, WriteSse};
}

// The best rate of `rounds` runs of `run` moving `bytes`, the first run (page faults,
// frequency ramp) not counted.
template <typename Fn>
double BestGbps(double bytes, int rounds, Fn run) {
  double best = 0;
  for (int round = 0; round <= rounds; ++round) {
    const auto start = ProbeClock::now();
    run();
    const double seconds = std::chrono::duration<double>(ProbeClock::now() - start).count();
    if (round > 0 && seconds > 0) best = std::max(best, bytes / seconds / 1e9);
  }
  return best;
}

// Independent FMA chains: enough to cover latency times throughput (4 cycles x 2 pipes), few
// enough that they and the two constants stay in registers (16 ymm registers without
// AVX-512: 16 chains would spill and halve the measured peak).
constexpr int kChains = 16;
constexpr int kChainsAvx2 = 12;

__attribute__((no_sanitize("address", "undefined"), target("avx512f"))) double PeakAvx512(
    long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f);
  const __m512 c = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 16 * kChains * static_cast<double>(iterations);
}

__attribute__((no_sanitize("address", "undefined"), target("avx2,fma"))) double PeakAvx2(
    long iterations) {
  __m256 acc[kChainsAvx2];
  for (int i = 0; i < kChainsAvx2; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999999f);
  const __m256 c = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChainsAvx2; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChainsAvx2; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 8 * kChainsAvx2 * static_cast<double>(iterations);
}

__attribute__((no_sanitize("address", "undefined"))) double PeakScalar(long iterations) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = static_cast<float>(i);
  for (long it = 0; it < iterations; ++it) {
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * 0.999999f + 1e-7f;
  }
  volatile float sink = acc[0];
  (void)sink;
  return 2.0 * kChains * static_cast<double>(iterations);
}

}  // namespace

BandwidthFigures MeasureBandwidth() {
  constexpr size_t kFloats = size_t{16} << 20;  // 64 MiB per array: far beyond any cache
  constexpr double kArrayBytes = kFloats * sizeof(float);
  constexpr int kRounds = 12;  // the best of many: a shared machine's dips do not count
  auto allocate = [] {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, kFloats * sizeof(float))), &std::free);
  };
  auto a = allocate(), b = allocate(), c = allocate();
  BandwidthFigures figures;
  if (!a || !b || !c) return figures;  // no memory for the arrays: no figures (roofline off)
  figures.allocated = true;
  std::fill_n(a.get(), kFloats, 0.0f);
  std::fill_n(b.get(), kFloats, 1.0f);
  std::fill_n(c.get(), kFloats, 2.0f);
  const MemoryProbes probe = WidestProbes();
  volatile float sink = 0;
  figures.read_gbps = BestGbps(kArrayBytes, kRounds, [&] { sink = probe.read(b.get(), kFloats); });
  for (bool streaming : {false, true}) {
    const double copy = BestGbps(2 * kArrayBytes, kRounds, [&] {
      probe.write(a.get(), nullptr, b.get(), 0, kFloats, streaming);
    });
    const double triad = BestGbps(3 * kArrayBytes, kRounds, [&] {
      probe.write(a.get(), b.get(), c.get(), 0.5f, kFloats, streaming);
    });
    (streaming ? figures.copy_streaming_gbps : figures.copy_plain_gbps) = copy;
    (streaming ? figures.triad_streaming_gbps : figures.triad_plain_gbps) = triad;
  }
  (void)sink;
  return figures;
}

double MeasurePeakGflops(std::string* isa) {
  double (*kernel)(long) = PeakScalar;
  *isa = "scalar";
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    kernel = PeakAvx512;
    *isa = "avx512f";
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    kernel = PeakAvx2;
    *isa = "avx2+fma";
  }
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    auto start = ProbeClock::now();
    double flops = kernel(2'000'000);
    double seconds = std::chrono::duration<double>(ProbeClock::now() - start).count();
    if (round > 0) best = std::max(best, flops / seconds / 1e9);
  }
  return best;
}

}  // namespace cannbot::validator
