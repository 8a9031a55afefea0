// add for the ascendc target, slow version: y = a + b on fp32 tensors.
//
// Correct but deliberately naive, as a baseline for the optimiser: one core, one buffer per
// queue (copies and compute never overlap) and an element-by-element scalar loop instead of a
// vector instruction. The structure is still the three-stage CopyIn / Compute / CopyOut.
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t kTileLen = 4096;

struct AddTiling {
  uint64_t total;
  uint32_t tile_len;
};

class AddKernel {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR y, const AddTiling& t) {
    count_ = t.total;
    tile_len_ = t.tile_len;
    aGm_.SetGlobalBuffer((__gm__ float*)a, count_);
    bGm_.SetGlobalBuffer((__gm__ float*)b, count_);
    yGm_.SetGlobalBuffer((__gm__ float*)y, count_);
    pipe_.InitBuffer(aQ_, BUFFER_NUM, tile_len_ * sizeof(float));
    pipe_.InitBuffer(bQ_, BUFFER_NUM, tile_len_ * sizeof(float));
    pipe_.InitBuffer(yQ_, BUFFER_NUM, tile_len_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint64_t off = 0; off < count_; off += tile_len_) {
      const uint32_t n = static_cast<uint32_t>(count_ - off < tile_len_ ? count_ - off : tile_len_);
      CopyIn(off, n);
      Compute(n);
      CopyOut(off, n);
    }
  }

 private:
  __aicore__ inline void CopyIn(uint64_t off, uint32_t n) {
    LocalTensor<float> a = aQ_.AllocTensor<float>();
    LocalTensor<float> b = bQ_.AllocTensor<float>();
    const DataCopyExtParams p(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    const DataCopyPadExtParams<float> pad(false, 0, 0, 0.0f);
    DataCopyPad(a, aGm_[off], p, pad);
    DataCopyPad(b, bGm_[off], p, pad);
    aQ_.EnQue(a);
    bQ_.EnQue(b);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<float> a = aQ_.DeQue<float>();
    LocalTensor<float> b = bQ_.DeQue<float>();
    LocalTensor<float> y = yQ_.AllocTensor<float>();
    for (uint32_t i = 0; i < n; ++i) y.SetValue(i, a.GetValue(i) + b.GetValue(i));
    yQ_.EnQue(y);
    aQ_.FreeTensor(a);
    bQ_.FreeTensor(b);
  }

  __aicore__ inline void CopyOut(uint64_t off, uint32_t n) {
    LocalTensor<float> y = yQ_.DeQue<float>();
    DataCopyPad(yGm_[off], y,
                DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
    yQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> aQ_, bQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> yQ_;
  GlobalTensor<float> aGm_, bGm_, yGm_;
  uint64_t count_ = 0;
  uint32_t tile_len_ = 0;
};

}  // namespace

extern "C" void add_tiling(int64_t n, CannbotTiling* tiling) {
  AddTiling t{};
  t.total = static_cast<uint64_t>(n);
  t.tile_len = kTileLen;
  tiling->block_dim = 1;
  tiling->dtype_bits = 32;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void add_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR y, GM_ADDR tiling) {
  const AddTiling t = *reinterpret_cast<__gm__ const AddTiling*>(tiling);
  AddKernel op;
  op.Init(a, b, y, t);
  op.Process();
}
