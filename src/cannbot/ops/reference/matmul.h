// Reference matmul, row-major: C[m,n] = A[m,k] * B[k,n], i.e.
// c[i*n + j] = sum_p a[i*k + p] * b[p*n + j], accumulated in double.
// The i-p-j loop order walks B and the accumulator row contiguously.
#ifndef CANNBOT_REF_MATMUL_H
#define CANNBOT_REF_MATMUL_H
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void matmul(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  std::vector<double> buffer(static_cast<std::size_t>(n));
  double* row = buffer.data();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) row[j] = 0.0;
    for (int64_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      const float* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += aip * bp[j];
    }
    for (int64_t j = 0; j < n; ++j) c[i * n + j] = static_cast<float>(row[j]);
  }
}

}  // namespace cannbot_ref
#endif
