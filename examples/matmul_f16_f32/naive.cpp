// Naive matmul_f16_f32: fp16 A[m,k] * fp16 B[k,n] -> fp32 C[m,n], all row-major. The i-j-k
// triple loop: each half is converted to float one element at a time and the products summed
// in a float accumulator. B is walked down a column (stride n) and nothing is vectorised;
// that is what the optimized version fixes.
#include <cstdint>

extern "C" void matmul_f16_f32(const half* a, const half* b, float* c, int64_t m, int64_t n,
                               int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        acc += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      }
      c[i * n + j] = acc;
    }
  }
}
