// layernorm for the ascendc target, slow version, fp32 tensors:
//   y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j]  (biased variance).
//
// Correct but deliberately naive, as a baseline for the optimiser: one core, one row per tile,
// one buffer per queue, and scalar loops over the row for the mean, the variance around the
// mean and the output.
#include <cmath>
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 1;
constexpr uint32_t kUnit = 8;

struct LayerNormTiling {
  uint32_t rows;
  uint32_t cols;
  uint32_t cols_aligned;
  float eps;
};

class LayerNormKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                              const LayerNormTiling& t) {
    t_ = t;
    const uint64_t total = static_cast<uint64_t>(t.rows) * t.cols;
    xGm_.SetGlobalBuffer((__gm__ float*)x, total);
    yGm_.SetGlobalBuffer((__gm__ float*)y, total);
    gammaGm_.SetGlobalBuffer((__gm__ float*)gamma, t.cols);
    betaGm_.SetGlobalBuffer((__gm__ float*)beta, t.cols);
    const uint32_t row_bytes = t.cols_aligned * static_cast<uint32_t>(sizeof(float));
    pipe_.InitBuffer(inQ_, BUFFER_NUM, row_bytes);
    pipe_.InitBuffer(outQ_, BUFFER_NUM, row_bytes);
    pipe_.InitBuffer(gammaBuf_, row_bytes);
    pipe_.InitBuffer(betaBuf_, row_bytes);
  }

  __aicore__ inline void Process() {
    const DataCopyExtParams row(1, t_.cols * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    LocalTensor<float> g = gammaBuf_.Get<float>();
    LocalTensor<float> b = betaBuf_.Get<float>();
    DataCopyPad(g, gammaGm_, row, DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    DataCopyPad(b, betaGm_, row, DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
    PipeBarrier<PIPE_ALL>();
    for (uint32_t r = 0; r < t_.rows; ++r) {
      const uint64_t off = static_cast<uint64_t>(r) * t_.cols;
      LocalTensor<float> x = inQ_.AllocTensor<float>();
      DataCopyPad(x, xGm_[off], row, DataCopyPadExtParams<float>(false, 0, 0, 0.0f));
      inQ_.EnQue(x);
      x = inQ_.DeQue<float>();
      LocalTensor<float> y = outQ_.AllocTensor<float>();
      float sum = 0.0f;
      for (uint32_t j = 0; j < t_.cols; ++j) sum += x.GetValue(j);
      const float mean = sum / static_cast<float>(t_.cols);
      float sq = 0.0f;
      for (uint32_t j = 0; j < t_.cols; ++j) {
        const float d = x.GetValue(j) - mean;
        sq += d * d;
      }
      const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(t_.cols) + t_.eps);
      for (uint32_t j = 0; j < t_.cols; ++j) {
        y.SetValue(j, (x.GetValue(j) - mean) * rstd * g.GetValue(j) + b.GetValue(j));
      }
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<float>();
      DataCopyPad(yGm_[off], y, row);
      outQ_.FreeTensor(y);
    }
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
  TBuf<TPosition::VECCALC> gammaBuf_, betaBuf_;
  GlobalTensor<float> xGm_, yGm_, gammaGm_, betaGm_;
  LayerNormTiling t_{};
};

}  // namespace

extern "C" void layernorm_tiling(int64_t rows, int64_t cols, float eps, CannbotTiling* tiling) {
  LayerNormTiling t{};
  t.rows = static_cast<uint32_t>(rows);
  t.cols = static_cast<uint32_t>(cols);
  t.cols_aligned = (t.cols + kUnit - 1) / kUnit * kUnit;
  t.eps = eps;
  tiling->block_dim = 1;
  tiling->dtype_bits = 32;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void layernorm_kernel(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                       GM_ADDR y, GM_ADDR tiling) {
  const LayerNormTiling t = *reinterpret_cast<__gm__ const LayerNormTiling*>(tiling);
  LayerNormKernel op;
  op.Init(x, gamma, beta, y, t);
  op.Process();
}
