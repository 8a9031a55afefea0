// Reference embedding lookup: y[t][c] = table[ids[t]][c], table is [vocab, dim], ids is
// [tokens] (int32, each in [0, vocab)), y is [tokens, dim]. An id outside [0, vocab) never
// occurs in a checked case; the reference writes a zero row for one rather than read outside
// the table.
#ifndef CANNBOT_REF_EMBEDDING_H
#define CANNBOT_REF_EMBEDDING_H
#include <cstdint>

namespace cannbot_ref {

inline void embedding(const float* table, const int32_t* ids, float* y, int64_t tokens,
                      int64_t vocab, int64_t dim) {
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t id = ids[t];
    const bool valid = id >= 0 && id < vocab;
    for (int64_t c = 0; c < dim; ++c) y[t * dim + c] = valid ? table[id * dim + c] : 0.0f;
  }
}

}  // namespace cannbot_ref
#endif
