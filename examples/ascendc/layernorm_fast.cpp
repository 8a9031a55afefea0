// layernorm for the ascendc target, fast version, fp32 tensors:
//   y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + eps) * gamma[j] + beta[j]  (biased variance).
//
// Rows are split across the vector cores; each tile holds several whole rows, each row padded
// to a 32-byte multiple in UB so every row starts aligned. Per row: ReduceSum for the mean,
// subtract, square, ReduceSum for the variance around the mean (never E[x^2] - E[x]^2), then
// scale, gamma and beta, all before the row goes back to global memory. gamma and beta are
// loaded once per core. Two buffers per queue overlap the copies with the math.
// UB: rows_per_tile is chosen so 2 x 2 tiles + 4 row temporaries fit the 192 KB budget.
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t kUnit = 8;             // fp32 per 32-byte block
constexpr uint32_t kBudget = 176 * 1024;  // leave headroom below the UB size
constexpr uint32_t kStatElems = 64;       // one repeat for the per-row statistics

struct LayerNormTiling {
  uint32_t rows;
  uint32_t cols;
  uint32_t cols_aligned;  // cols rounded up to whole 32-byte blocks
  uint32_t rows_per_tile;
  float eps;
};

class LayerNormKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                              const LayerNormTiling& t) {
    const uint32_t i = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t cores = static_cast<uint32_t>(GetBlockNum());
    const uint32_t base = t.rows / cores, rem = t.rows % cores;
    row_begin_ = i * base + (i < rem ? i : rem);
    row_count_ = base + (i < rem ? 1 : 0);
    t_ = t;
    const uint64_t row_bytes = static_cast<uint64_t>(t.cols_aligned) * sizeof(float);
    xGm_.SetGlobalBuffer((__gm__ float*)x + static_cast<uint64_t>(row_begin_) * t.cols,
                         static_cast<uint64_t>(row_count_) * t.cols);
    yGm_.SetGlobalBuffer((__gm__ float*)y + static_cast<uint64_t>(row_begin_) * t.cols,
                         static_cast<uint64_t>(row_count_) * t.cols);
    gammaGm_.SetGlobalBuffer((__gm__ float*)gamma, t.cols);
    betaGm_.SetGlobalBuffer((__gm__ float*)beta, t.cols);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, static_cast<uint32_t>(row_bytes * t.rows_per_tile));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, static_cast<uint32_t>(row_bytes * t.rows_per_tile));
    pipe_.InitBuffer(gammaBuf_, static_cast<uint32_t>(row_bytes));
    pipe_.InitBuffer(betaBuf_, static_cast<uint32_t>(row_bytes));
    pipe_.InitBuffer(sqBuf_, static_cast<uint32_t>(row_bytes));
    pipe_.InitBuffer(statBuf_, kStatElems * sizeof(float));
    pipe_.InitBuffer(workBuf_, kStatElems * sizeof(float));
  }

  __aicore__ inline void Process() {
    if (row_count_ == 0) return;
    LoadParams();
    for (uint32_t r = 0; r < row_count_; r += t_.rows_per_tile) {
      const uint32_t rows = row_count_ - r < t_.rows_per_tile ? row_count_ - r : t_.rows_per_tile;
      CopyIn(r, rows);
      Compute(rows);
      CopyOut(r, rows);
    }
  }

 private:
  // gamma and beta once per core; the MTE2 -> V flag makes the vector unit wait for them.
  __aicore__ inline void LoadParams() {
    LocalTensor<float> g = gammaBuf_.Get<float>();
    LocalTensor<float> b = betaBuf_.Get<float>();
    const DataCopyExtParams p(1, t_.cols * static_cast<uint32_t>(sizeof(float)), 0, 0, 0);
    DataCopyPad(g, gammaGm_, p, DataCopyPadExtParams<float>(true, 0, 0, 0.0f));
    DataCopyPad(b, betaGm_, p, DataCopyPadExtParams<float>(true, 0, 0, 0.0f));
    const event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
    SetFlag<HardEvent::MTE2_V>(e);
    WaitFlag<HardEvent::MTE2_V>(e);
  }

  __aicore__ inline void CopyIn(uint32_t r, uint32_t rows) {
    LocalTensor<float> x = inQ_.AllocTensor<float>();
    // One block per row: GM rows are contiguous, UB rows padded to cols_aligned.
    DataCopyPad(x, xGm_[static_cast<uint64_t>(r) * t_.cols],
                DataCopyExtParams(static_cast<uint16_t>(rows),
                                  t_.cols * static_cast<uint32_t>(sizeof(float)), 0, 0, 0),
                DataCopyPadExtParams<float>(true, 0, 0, 0.0f));
    inQ_.EnQue(x);
  }

  // Reads the reduction result in stat[0] on the scalar unit once the vector unit wrote it.
  __aicore__ inline float ScalarResult(const LocalTensor<float>& stat) {
    const event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(e);
    WaitFlag<HardEvent::V_S>(e);
    return stat.GetValue(0);
  }

  __aicore__ inline void Compute(uint32_t rows) {
    LocalTensor<float> x = inQ_.DeQue<float>();
    LocalTensor<float> y = outQ_.AllocTensor<float>();
    LocalTensor<float> g = gammaBuf_.Get<float>();
    LocalTensor<float> b = betaBuf_.Get<float>();
    LocalTensor<float> sq = sqBuf_.Get<float>();
    LocalTensor<float> stat = statBuf_.Get<float>();
    LocalTensor<float> work = workBuf_.Get<float>();
    const int32_t cols = static_cast<int32_t>(t_.cols);
    const float inv_cols = 1.0f / static_cast<float>(t_.cols);
    for (uint32_t k = 0; k < rows; ++k) {
      LocalTensor<float> xr = x[k * t_.cols_aligned];
      LocalTensor<float> yr = y[k * t_.cols_aligned];
      ReduceSum(stat, xr, work, cols);
      const float mean = ScalarResult(stat) * inv_cols;
      Adds(yr, xr, -mean, cols);  // centred row
      Mul(sq, yr, yr, cols);
      ReduceSum(stat, sq, work, cols);
      // rstd = 1 / sqrt(var + eps), on the vector unit.
      Muls(stat, stat, inv_cols, 1);
      Adds(stat, stat, t_.eps, 1);
      Sqrt(stat, stat, 1);
      Reciprocal(stat, stat, 1);
      const float rstd = ScalarResult(stat);
      Muls(yr, yr, rstd, cols);
      Mul(yr, yr, g, cols);
      Add(yr, yr, b, cols);
    }
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t r, uint32_t rows) {
    LocalTensor<float> y = outQ_.DeQue<float>();
    DataCopyPad(yGm_[static_cast<uint64_t>(r) * t_.cols], y,
                DataCopyExtParams(static_cast<uint16_t>(rows),
                                  t_.cols * static_cast<uint32_t>(sizeof(float)), 0, 0, 0));
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
  TBuf<TPosition::VECCALC> gammaBuf_, betaBuf_, sqBuf_, statBuf_, workBuf_;
  GlobalTensor<float> xGm_, yGm_, gammaGm_, betaGm_;
  LayerNormTiling t_{};
  uint32_t row_begin_ = 0, row_count_ = 0;
};

}  // namespace

extern "C" void layernorm_tiling(int64_t rows, int64_t cols, float eps, CannbotTiling* tiling) {
  LayerNormTiling t{};
  t.rows = static_cast<uint32_t>(rows);
  t.cols = static_cast<uint32_t>(cols);
  t.cols_aligned = (t.cols + kUnit - 1) / kUnit * kUnit;
  t.eps = eps;
  // 2 queues x 2 buffers x rows_per_tile rows, plus gamma, beta, one squared row, stats.
  const uint32_t row_bytes = t.cols_aligned * static_cast<uint32_t>(sizeof(float));
  const uint32_t fixed = 3 * row_bytes + 2 * kStatElems * sizeof(float);
  uint32_t per_tile = fixed < kBudget ? (kBudget - fixed) / (4 * row_bytes) : 1;
  if (per_tile == 0) per_tile = 1;
  if (per_tile > 4095) per_tile = 4095;  // DataCopyPad blockCount limit
  const uint32_t blocks = t.rows < CANNBOT_VECTOR_CORES ? t.rows : CANNBOT_VECTOR_CORES;
  const uint32_t rows_per_block = (t.rows + blocks - 1) / blocks;
  t.rows_per_tile = per_tile < rows_per_block ? per_tile : rows_per_block;
  tiling->block_dim = blocks;
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
