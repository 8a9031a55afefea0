// swish for the ascendc target, slow version: y = x / (1 + exp(-x)) on fp16 tensors.
//
// Correct but deliberately naive, as a baseline for the optimiser: one core, one buffer per
// queue, and a scalar loop that reads each element, evaluates swish in fp32 and writes it back.
#include <cmath>
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t kTileLen = 4096;

struct SwishTiling {
  uint64_t total;
  uint32_t tile_len;
};

class SwishKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SwishTiling& t) {
    count_ = t.total;
    tile_len_ = t.tile_len;
    xGm_.SetGlobalBuffer((__gm__ half*)x, count_);
    yGm_.SetGlobalBuffer((__gm__ half*)y, count_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_len_ * sizeof(half));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_len_ * sizeof(half));
  }

  __aicore__ inline void Process() {
    for (uint64_t off = 0; off < count_; off += tile_len_) {
      const uint32_t n = static_cast<uint32_t>(count_ - off < tile_len_ ? count_ - off : tile_len_);
      LocalTensor<half> x = inQ_.AllocTensor<half>();
      DataCopyPad(x, xGm_[off],
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(half)), 0, 0, 0),
                  DataCopyPadExtParams<half>(false, 0, 0, half(0)));
      inQ_.EnQue(x);
      x = inQ_.DeQue<half>();
      LocalTensor<half> y = outQ_.AllocTensor<half>();
      for (uint32_t i = 0; i < n; ++i) {
        const float v = static_cast<float>(x.GetValue(i));
        y.SetValue(i, static_cast<half>(v / (1.0f + std::exp(-v))));
      }
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<half>();
      DataCopyPad(yGm_[off], y,
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(half)), 0, 0, 0));
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<half> xGm_, yGm_;
  uint64_t count_ = 0;
  uint32_t tile_len_ = 0;
};

}  // namespace

extern "C" void swish_tiling(int64_t n, CannbotTiling* tiling) {
  SwishTiling t{};
  t.total = static_cast<uint64_t>(n);
  t.tile_len = kTileLen;
  tiling->block_dim = 1;
  tiling->dtype_bits = 16;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void swish_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const SwishTiling t = *reinterpret_cast<__gm__ const SwishTiling*>(tiling);
  SwishKernel op;
  op.Init(x, y, t);
  op.Process();
}
