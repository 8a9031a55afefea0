// Naive batched_matmul: C[t,m,n] = A[t,m,k] * B[t,k,n] for each batch t, all row-major fp32.
// The textbook i-j-k triple loop per batch with a float accumulator. The inner loop walks B
// down a column (stride n), which is cache-unfriendly and cannot be vectorised; that is what
// the optimized version fixes.
#include <cstdint>

extern "C" void batched_matmul(const float* a, const float* b, float* c, int64_t batch, int64_t m,
                               int64_t n, int64_t k) {
  for (int64_t t = 0; t < batch; ++t) {
    const float* at = a + t * m * k;
    const float* bt = b + t * k * n;
    float* ct = c + t * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t p = 0; p < k; ++p) {
          acc += at[i * k + p] * bt[p * n + j];
        }
        ct[i * n + j] = acc;
      }
    }
  }
}
