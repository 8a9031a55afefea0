// LayerNormCustom, kernel side, slow version: one core walks the rows; each row is copied in,
// normalised element by element on the scalar unit (two passes: the mean, then the variance
// around it), and copied out. gamma and beta stay in UB.
#include <cmath>

#include "kernel_operator.h"

using namespace AscendC;

class KernelLayerNorm {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, uint32_t rows,
                              uint32_t cols, uint32_t colsAligned, float eps) {
    rows_ = rows;
    cols_ = cols;
    eps_ = eps;
    xGm_.SetGlobalBuffer((__gm__ DTYPE_X*)x, static_cast<uint64_t>(rows) * cols);
    yGm_.SetGlobalBuffer((__gm__ DTYPE_Y*)y, static_cast<uint64_t>(rows) * cols);
    gammaGm_.SetGlobalBuffer((__gm__ DTYPE_GAMMA*)gamma, cols);
    betaGm_.SetGlobalBuffer((__gm__ DTYPE_BETA*)beta, cols);
    pipe_.InitBuffer(inQ_, 1, colsAligned * sizeof(DTYPE_X));
    pipe_.InitBuffer(outQ_, 1, colsAligned * sizeof(DTYPE_Y));
    pipe_.InitBuffer(paramQ_, 2, colsAligned * sizeof(DTYPE_GAMMA));
  }

  __aicore__ inline void Process() {
    const DataCopyExtParams row(1, cols_ * static_cast<uint32_t>(sizeof(DTYPE_X)), 0, 0, 0);
    LocalTensor<DTYPE_GAMMA> g = paramQ_.AllocTensor<DTYPE_GAMMA>();
    LocalTensor<DTYPE_BETA> b = paramQ_.AllocTensor<DTYPE_BETA>();
    DataCopyPad(g, gammaGm_, row, DataCopyPadExtParams<DTYPE_GAMMA>(false, 0, 0, 0));
    DataCopyPad(b, betaGm_, row, DataCopyPadExtParams<DTYPE_BETA>(false, 0, 0, 0));
    paramQ_.EnQue(g);
    paramQ_.EnQue(b);
    g = paramQ_.DeQue<DTYPE_GAMMA>();
    b = paramQ_.DeQue<DTYPE_BETA>();
    for (uint32_t r = 0; r < rows_; ++r) {
      const uint64_t offset = static_cast<uint64_t>(r) * cols_;
      LocalTensor<DTYPE_X> x = inQ_.AllocTensor<DTYPE_X>();
      DataCopyPad(x, xGm_[offset], row, DataCopyPadExtParams<DTYPE_X>(false, 0, 0, 0));
      inQ_.EnQue(x);
      x = inQ_.DeQue<DTYPE_X>();
      LocalTensor<DTYPE_Y> y = outQ_.AllocTensor<DTYPE_Y>();
      float sum = 0;
      for (uint32_t j = 0; j < cols_; ++j) sum += static_cast<float>(x.GetValue(j));
      const float mean = sum / static_cast<float>(cols_);
      float squares = 0;
      for (uint32_t j = 0; j < cols_; ++j) {
        const float d = static_cast<float>(x.GetValue(j)) - mean;
        squares += d * d;
      }
      const float rstd = 1.0f / std::sqrt(squares / static_cast<float>(cols_) + eps_);
      for (uint32_t j = 0; j < cols_; ++j) {
        const float v = (static_cast<float>(x.GetValue(j)) - mean) * rstd *
                            static_cast<float>(g.GetValue(j)) +
                        static_cast<float>(b.GetValue(j));
        y.SetValue(j, static_cast<DTYPE_Y>(v));
      }
      outQ_.EnQue(y);
      inQ_.FreeTensor(x);
      y = outQ_.DeQue<DTYPE_Y>();
      DataCopyPad(yGm_[offset], y, row);
      outQ_.FreeTensor(y);
    }
    paramQ_.FreeTensor(g);
    paramQ_.FreeTensor(b);
  }

 private:
  TPipe pipe_;
  TQue<QuePosition::VECIN, 1> inQ_;
  TQue<QuePosition::VECIN, 2> paramQ_;
  TQue<QuePosition::VECOUT, 1> outQ_;
  GlobalTensor<DTYPE_X> xGm_;
  GlobalTensor<DTYPE_Y> yGm_;
  GlobalTensor<DTYPE_GAMMA> gammaGm_;
  GlobalTensor<DTYPE_BETA> betaGm_;
  uint32_t rows_ = 0, cols_ = 0;
  float eps_ = 0;
};

extern "C" __global__ __aicore__ void layernorm_custom(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta,
                                                       GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling) {
  GET_TILING_DATA(tilingData, tiling);
  KernelLayerNorm op;
  op.Init(x, gamma, beta, y, tilingData.rows, tilingData.cols, tilingData.colsAligned,
          tilingData.eps);
  op.Process();
}
