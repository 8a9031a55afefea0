// Reference matmul with B transposed, row-major: C[m,n] = A[m,k] * B[n,k]^T, i.e.
// c[i*n + j] = sum_p a[i*k + p] * b[j*k + p], accumulated in double.
#ifndef CANNBOT_REF_MATMUL_BT_H
#define CANNBOT_REF_MATMUL_BT_H
#include <cstdint>

namespace cannbot_ref {

inline void matmul_bt(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    const float* ai = a + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const float* bj = b + j * k;  // row j of b is column j of the mathematical B
      double acc = 0.0;
      for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(ai[p]) * bj[p];
      c[i * n + j] = static_cast<float>(acc);
    }
  }
}

}  // namespace cannbot_ref
#endif
