// Reference mixed-precision matmul: fp16 A[m,k] * fp16 B[k,n] -> fp32 C[m,n], row-major; the
// halves arrive widened to float (exactly), c[i*n + j] = sum_p a[i*k + p] * b[p*n + j] in double.
#ifndef CANNBOT_REF_MATMUL_F16_F32_H
#define CANNBOT_REF_MATMUL_F16_F32_H
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void matmul_f16_f32(const float* a, const float* b, float* c, int64_t m, int64_t n,
                           int64_t k) {
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
