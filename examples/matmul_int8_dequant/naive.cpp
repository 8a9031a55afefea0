// Naive matmul_int8_dequant: y[m,n] = (int8 A[m,k] * int8 B[k,n]) * scale[n], row-major. The
// i-j-k triple loop with an exact int32 accumulator, then one float multiply by the channel's
// scale. B is walked down a column (stride n) and nothing is vectorised; that is what the
// optimized version fixes.
#include <cstdint>

extern "C" void matmul_int8_dequant(const int8_t* a, const int8_t* b, const float* scale, float* y,
                                    int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc += static_cast<int32_t>(a[i * k + p]) * static_cast<int32_t>(b[p * n + j]);
      }
      y[i * n + j] = static_cast<float>(acc) * scale[j];
    }
  }
}
