// Reference batched matmul, row-major: C[t,m,n] = A[t,m,k] * B[t,k,n] for each t < batch, i.e.
// c[(t*m + i)*n + j] = sum_p a[(t*m + i)*k + p] * b[(t*k + p)*n + j], accumulated in double.
#ifndef CANNBOT_REF_BATCHED_MATMUL_H
#define CANNBOT_REF_BATCHED_MATMUL_H
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void batched_matmul(const float* a, const float* b, float* c, int64_t batch, int64_t m,
                           int64_t n, int64_t k) {
  std::vector<double> buffer(static_cast<std::size_t>(n));
  double* row = buffer.data();
  for (int64_t t = 0; t < batch; ++t) {
    const float* at = a + t * m * k;
    const float* bt = b + t * k * n;
    float* ct = c + t * m * n;
    // i-p-j order: B's rows and the accumulator row are walked contiguously.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) row[j] = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double aip = at[i * k + p];
        const float* bp = bt + p * n;
        for (int64_t j = 0; j < n; ++j) row[j] += aip * bp[j];
      }
      for (int64_t j = 0; j < n; ++j) ct[i * n + j] = static_cast<float>(row[j]);
    }
  }
}

}  // namespace cannbot_ref
#endif
