// gelu for the ascendc target, slow version: y = 0.5 x (1 + erf(x / sqrt(2))) on fp32 tensors.
//
// Correct but deliberately naive, as a baseline for the optimiser: one core, one buffer per
// queue, and a scalar loop per element. It uses the same cancellation-free form as the fast
// version, gelu(x) = relu(x) - |x| erfc(|x|/sqrt2) / 2, with the same erfc fit.
#include <cmath>
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t kTileLen = 4096;

struct GeluTiling {
  uint64_t total;
  uint32_t tile_len;
};

// erfc(z) for z >= 0: t exp(-z^2 + P(t)), t = 1 / (1 + z/2); fractional error < 1.2e-7.
inline float ErfcNonNegative(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  const float p =
      -1.26551223f +
      t * (1.00002368f +
           t * (0.37409196f +
                t * (0.09678418f +
                     t * (-0.18628806f +
                          t * (0.27886807f +
                               t * (-1.13520398f +
                                    t * (1.48851587f + t * (-0.82215223f + t * 0.17087277f))))))));
  return t * std::exp(p - z * z);
}

class GeluKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const GeluTiling& t) {
    count_ = t.total;
    tile_len_ = t.tile_len;
    xGm_.SetGlobalBuffer((__gm__ float*)x, count_);
    yGm_.SetGlobalBuffer((__gm__ float*)y, count_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_len_ * sizeof(float));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_len_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (uint64_t off = 0; off < count_; off += tile_len_) {
      const uint32_t n = static_cast<uint32_t>(count_ - off < tile_len_ ? count_ - off : tile_len_);
      const DataCopyExtParams p(1, n * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopyPad(x, xGm_[off], p, DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      for (uint32_t i = 0; i < n; ++i) {
        const float v = x.GetValue(i);
        const float a = std::fabs(v);
        y.SetValue(i, (v > 0 ? v : 0.0f) - 0.5f * a * ErfcNonNegative(a * 0.70710678f));
      }
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopyPad(yGm_[off], y, p);
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
  GlobalTensor<float> xGm_, yGm_;
  uint64_t count_ = 0;
  uint32_t tile_len_ = 0;
};

}  // namespace

extern "C" void gelu_tiling(int64_t n, CannbotTiling* tiling) {
  GeluTiling t{};
  t.total = static_cast<uint64_t>(n);
  t.tile_len = kTileLen;
  tiling->block_dim = 1;
  tiling->dtype_bits = 32;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void gelu_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const GeluTiling t = *reinterpret_cast<__gm__ const GeluTiling*>(tiling);
  GeluKernel op;
  op.Init(x, y, t);
  op.Process();
}
