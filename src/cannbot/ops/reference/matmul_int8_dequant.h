// Reference int8 matmul with per-channel dequantisation, row-major:
// y[i*n + j] = (sum_p a[i*k + p] * b[p*n + j], exact in int64) * scale[j], rounded once to float.
#ifndef CANNBOT_REF_MATMUL_INT8_DEQUANT_H
#define CANNBOT_REF_MATMUL_INT8_DEQUANT_H
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cannbot_ref {

inline void matmul_int8_dequant(const int8_t* a, const int8_t* b, const float* scale, float* y,
                                int64_t m, int64_t n, int64_t k) {
  std::vector<int64_t> buffer(static_cast<std::size_t>(n));
  int64_t* row = buffer.data();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) row[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const int64_t aip = a[i * k + p];
      const int8_t* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) row[j] += aip * bp[j];
    }
    // |acc| <= 16384*k < 2^29 for k < 32768, so acc * scale (at most 29 + 24 significant bits)
    // is exact in double and the cast to float is the one rounding.
    for (int64_t j = 0; j < n; ++j) {
      y[i * n + j] = static_cast<float>(static_cast<double>(row[j]) * static_cast<double>(scale[j]));
    }
  }
}

}  // namespace cannbot_ref
#endif
