// add for the ascendc target, fast version: y = a + b on fp32 tensors.
//
// The classic three-stage pipeline (CopyIn / Compute / CopyOut) with two buffers per queue, so
// the copy of tile i+1 overlaps the vector add of tile i, spread over every vector core. The
// tensor is split across cores in 32-byte units; the one tile per core that is not a whole
// number of 32-byte blocks moves with DataCopyPad. UB: 3 queues x 2 buffers x 16 KB = 96 KB.
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t kTileLen = 4096;  // fp32 elements per buffer: 16 KB, 64 full repeats
constexpr uint32_t kUnit = 8;        // fp32 elements per 32-byte block

struct AddTiling {
  uint64_t total;     // elements
  uint32_t units;     // 32-byte units, rounded up
  uint32_t tile_len;  // elements per tile
};

class AddKernel {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR y, const AddTiling& t) {
    // This core's share: `base` units each, the first `rem` cores one more.
    const uint32_t i = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t cores = static_cast<uint32_t>(GetBlockNum());
    const uint32_t base = t.units / cores, rem = t.units % cores;
    const uint64_t first = static_cast<uint64_t>(i) * base + (i < rem ? i : rem);
    const uint64_t begin = first * kUnit;
    uint64_t count = static_cast<uint64_t>(base + (i < rem ? 1 : 0)) * kUnit;
    if (begin >= t.total)
      count = 0;
    else if (begin + count > t.total)
      count = t.total - begin;
    count_ = static_cast<uint32_t>(count);
    tile_len_ = t.tile_len;
    aGm_.SetGlobalBuffer((__gm__ float*)a + begin, count_);
    bGm_.SetGlobalBuffer((__gm__ float*)b + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ float*)y + begin, count_);
    pipe_.InitBuffer(aQ_, BUFFER_NUM, tile_len_ * sizeof(float));
    pipe_.InitBuffer(bQ_, BUFFER_NUM, tile_len_ * sizeof(float));
    pipe_.InitBuffer(yQ_, BUFFER_NUM, tile_len_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    const uint32_t tiles = (count_ + tile_len_ - 1) / tile_len_;
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint32_t n = (t + 1 == tiles) ? count_ - t * tile_len_ : tile_len_;
      CopyIn(t, n);
      Compute(n);
      CopyOut(t, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint32_t t, uint32_t n) {
    LocalTensor<float> a = aQ_.AllocTensor<float>();
    LocalTensor<float> b = bQ_.AllocTensor<float>();
    const uint64_t off = static_cast<uint64_t>(t) * tile_len_;
    if (n % kUnit == 0) {
      DataCopy(a, aGm_[off], n);
      DataCopy(b, bGm_[off], n);
    } else {
      const DataCopyExtParams p(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
      const DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
      DataCopyPad(a, aGm_[off], p, pad);
      DataCopyPad(b, bGm_[off], p, pad);
    }
    aQ_.EnQue(a);
    bQ_.EnQue(b);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> a = aQ_.DeQue<float>();
    LocalTensor<float> b = bQ_.DeQue<float>();
    LocalTensor<float> y = yQ_.AllocTensor<float>();
    Add(y, a, b, static_cast<int32_t>(n));
    yQ_.EnQue(y);
    aQ_.FreeTensor(a);
    bQ_.FreeTensor(b);
  }

  __aicore__ inline void CopyOut(uint32_t t, uint32_t n) {
    LocalTensor<float> y = yQ_.DeQue<float>();
    const uint64_t off = static_cast<uint64_t>(t) * tile_len_;
    if (n % kUnit == 0) {
      DataCopy(yGm_[off], y, n);
    } else {
      DataCopyPad(yGm_[off], y,
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
    }
    yQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> aQ_, bQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> yQ_;
  GlobalTensor<float> aGm_, bGm_, yGm_;
  uint32_t count_ = 0, tile_len_ = 0;
};

}  // namespace

extern "C" void add_tiling(int64_t n, CannbotTiling* tiling) {
  AddTiling t{};
  t.total = static_cast<uint64_t>(n);
  t.units = static_cast<uint32_t>((t.total + kUnit - 1) / kUnit);
  t.tile_len = kTileLen;
  // Every vector core once the tensor fills a tile per core; fewer blocks for small tensors.
  const uint32_t units_per_tile = kTileLen / kUnit;
  const uint32_t wanted = (t.units + units_per_tile - 1) / units_per_tile;
  tiling->block_dim =
      wanted < CANNBOT_VECTOR_CORES ? (wanted == 0 ? 1 : wanted) : CANNBOT_VECTOR_CORES;
  tiling->dtype_bits = 32;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void add_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR tiling) {
  const AddTiling t = *reinterpret_cast<__gm__ const AddTiling*>(tiling);
  AddKernel op;
  op.Init(a, b, y, t);
  op.Process();
}
