// Naive embedding lookup: for every token, copy row ids[t] of the [vocab, dim] table into
// row t of y, one float at a time. The ids are always in [0, vocab).
#include <cstdint>

extern "C" void embedding(const float* table, const int32_t* ids, float* y, int64_t tokens,
                          int64_t vocab, int64_t dim) {
  (void)vocab;
  for (int64_t t = 0; t < tokens; ++t) {
    const float* row = table + static_cast<int64_t>(ids[t]) * dim;
    for (int64_t c = 0; c < dim; ++c) y[t * dim + c] = row[c];
  }
}
