// Naive matmul: C[m,n] = A[m,k] * B[k,n], all row-major fp32.
// The textbook i-j-k triple loop with a float accumulator. The inner loop walks B down a
// column (stride n), which is cache-unfriendly and cannot be vectorised; that is what the
// optimized version fixes.
#include <cstdint>

extern "C" void matmul(const float* a, const float* b, float* c, int64_t m, int64_t n,
                       int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        acc += a[i * k + p] * b[p * n + j];
      }
      c[i * n + j] = acc;
    }
  }
}
