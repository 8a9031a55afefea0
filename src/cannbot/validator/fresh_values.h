// FreshValues: fast, independent draws of fp32 values for the perf gate's timed rounds.
//
// Every timed round after the first gives every input values drawn afresh (perf_data.h): no
// transform of earlier data, whose structure a kernel could exploit (a sum, a dot product or a
// row's maximum carried over from round 0 through a rotation or a shift). Drawing through
// <random> costs about 30 ns a value, more than a memory-bound kernel spends on one, so these
// are counter-based: value i of a stream is a function of (key, i) alone, a 64-bit mix of the
// two. Normal values are the normal quantile of a 24-bit uniform draw: interpolated in a
// 4096-segment table, exact in the two extreme segments (beyond 3.4 standard deviations), so
// the moments and tails match the normal's up to about 5.3 standard deviations, the farthest
// a 24-bit draw reaches; uniform values are the draw itself, scaled. An AVX2 path (chosen at
// run time) and the portable one give the same bits.
//
// Thread-safety: pure functions (the table is built once, thread-safely).
#pragma once

#include <cstdint>

namespace cannbot::validator {

// out[i] for i < n: normal(mean, sd) draws of stream `key`.
void FillNormal(float* out, int64_t n, uint64_t key, float mean, float sd);
// out[i] for i < n: uniform draws on [a, b) of stream `key`; `below_b` is the largest float
// below b, and a value that rounds past it becomes it.
void FillUniform(float* out, int64_t n, uint64_t key, float a, float b, float below_b);
// A uniform 64-bit word: element `i` of stream `key` (integer draws take it modulo their range).
uint64_t FreshWord(uint64_t key, int64_t i);
// A key for a stream named by up to four numbers (seed, round, set, input).
uint64_t FreshKey(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
// The SplitMix64 finaliser, every stream's key mix (inputs.cc names its streams with it too).
uint64_t SplitMix64(uint64_t x);

// For tests: the portable path, whatever the CPU.
void FillNormalPortable(float* out, int64_t n, uint64_t key, float mean, float sd);
void FillUniformPortable(float* out, int64_t n, uint64_t key, float a, float b, float below_b);

}  // namespace cannbot::validator
