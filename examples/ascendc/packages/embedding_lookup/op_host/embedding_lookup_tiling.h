// EmbeddingLookup's tiling data: what the host tiling function computes and every core reads.
#ifndef EMBEDDING_LOOKUP_TILING_H
#define EMBEDDING_LOOKUP_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EmbeddingLookupTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tokens);     // ids, and rows of y
TILING_DATA_FIELD_DEF(uint32_t, dim);        // floats in a row
TILING_DATA_FIELD_DEF(uint32_t, perCore);    // tokens a core looks up (the last: the rest)
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(EmbeddingLookup, EmbeddingLookupTilingData)
}  // namespace optiling
#endif  // EMBEDDING_LOOKUP_TILING_H
