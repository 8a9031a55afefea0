// Naive matmul_bt: C[m,n] = A[m,k] * B[n,k]^T, all row-major fp32 (B kept transposed, as a
// linear layer's weights are). The i-j-k triple loop with a float accumulator: both operands
// are read along k contiguously, but one scalar dot product at a time, unvectorised and with
// no reuse of A's row across several columns; that is what the optimized version fixes.
#include <cstdint>

extern "C" void matmul_bt(const float* a, const float* b, float* c, int64_t m, int64_t n,
                          int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        acc += a[i * k + p] * b[j * k + p];
      }
      c[i * n + j] = acc;
    }
  }
}
