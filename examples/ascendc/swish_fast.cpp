// swish for the ascendc target, fast version: y = x / (1 + exp(-x)) on fp16 tensors.
//
// Half in global memory halves the traffic of this memory-bound op; the math runs in fp32
// (Cast up, compute, Cast down with round-to-nearest-even) because half exp is too coarse.
// Three-stage pipeline with two buffers per queue over every vector core, whole-tile vector
// instructions, DataCopyPad for the one unaligned tail tile.
// UB: in 2 x 16 KB + out 2 x 16 KB (half) + two fp32 temporaries of 32 KB = 128 KB.
#include <cstring>

#include "kernel_operator.h"

using namespace AscendC;

namespace {

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t kTileLen = 8192;  // half elements per buffer: 16 KB
constexpr uint32_t kUnit = 16;       // half elements per 32-byte block

struct SwishTiling {
  uint64_t total;
  uint32_t units;
  uint32_t tile_len;
};

class SwishKernel {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SwishTiling& t) {
    const uint32_t i = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t cores = static_cast<uint32_t>(GetBlockNum());
    const uint32_t base = t.units / cores, rem = t.units % cores;
    const uint64_t begin = (static_cast<uint64_t>(i) * base + (i < rem ? i : rem)) * kUnit;
    uint64_t count = static_cast<uint64_t>(base + (i < rem ? 1 : 0)) * kUnit;
    if (begin >= t.total)
      count = 0;
    else if (begin + count > t.total)
      count = t.total - begin;
    count_ = static_cast<uint32_t>(count);
    tile_len_ = t.tile_len;
    xGm_.SetGlobalBuffer((__gm__ half*)x + begin, count_);
    yGm_.SetGlobalBuffer((__gm__ half*)y + begin, count_);
    pipe_.InitBuffer(inQ_, BUFFER_NUM, tile_len_ * sizeof(half));
    pipe_.InitBuffer(outQ_, BUFFER_NUM, tile_len_ * sizeof(half));
    pipe_.InitBuffer(xf_, tile_len_ * sizeof(float));
    pipe_.InitBuffer(tf_, tile_len_ * sizeof(float));
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
    LocalTensor<half> x = inQ_.AllocTensor<half>();
    const uint64_t off = static_cast<uint64_t>(t) * tile_len_;
    if (n % kUnit == 0) {
      DataCopy(x, xGm_[off], n);
    } else {
      DataCopyPad(x, xGm_[off],
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(half)), 0, 0, 0),
                  DataCopyPadExtParams<half>(false, 0, 0, half(0)));
    }
    inQ_.EnQue(x);
  }

  __aicore__ inline void Compute(uint32_t n) {
    LocalTensor<half> x = inQ_.DeQue<half>();
    LocalTensor<half> y = outQ_.AllocTensor<half>();
    LocalTensor<float> xf = xf_.Get<float>();
    LocalTensor<float> tf = tf_.Get<float>();
    const int32_t count = static_cast<int32_t>(n);
    Cast(xf, x, RoundMode::CAST_NONE, n);
    Muls(tf, xf, -1.0f, count);
    Exp(tf, tf, count);  // exp(-x); inf for very negative x gives x / inf = -0
    Adds(tf, tf, 1.0f, count);
    Div(xf, xf, tf, count);
    Cast(y, xf, RoundMode::CAST_RINT, n);
    outQ_.EnQue(y);
    inQ_.FreeTensor(x);
  }

  __aicore__ inline void CopyOut(uint32_t t, uint32_t n) {
    LocalTensor<half> y = outQ_.DeQue<half>();
    const uint64_t off = static_cast<uint64_t>(t) * tile_len_;
    if (n % kUnit == 0) {
      DataCopy(yGm_[off], y, n);
    } else {
      DataCopyPad(yGm_[off], y,
                  DataCopyExtParams(1, n * static_cast<uint32_t>(sizeof(half)), 0, 0, 0));
    }
    outQ_.FreeTensor(y);
  }

  TPipe pipe_;
  TQue<QuePosition::VECIN, BUFFER_NUM> inQ_;
  TQue<QuePosition::VECOUT, BUFFER_NUM> outQ_;
  TBuf<TPosition::VECCALC> xf_, tf_;
  GlobalTensor<half> xGm_, yGm_;
  uint32_t count_ = 0, tile_len_ = 0;
};

}  // namespace

extern "C" void swish_tiling(int64_t n, CannbotTiling* tiling) {
  SwishTiling t{};
  t.total = static_cast<uint64_t>(n);
  t.units = static_cast<uint32_t>((t.total + kUnit - 1) / kUnit);
  t.tile_len = kTileLen;
  const uint32_t units_per_tile = kTileLen / kUnit;
  const uint32_t wanted = (t.units + units_per_tile - 1) / units_per_tile;
  tiling->block_dim =
      wanted < CANNBOT_VECTOR_CORES ? (wanted == 0 ? 1 : wanted) : CANNBOT_VECTOR_CORES;
  tiling->dtype_bits = 16;
  std::memcpy(tiling->data, &t, sizeof(t));
}

extern "C" __global__ __aicore__ void swish_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  const SwishTiling t = *reinterpret_cast<__gm__ const SwishTiling*>(tiling);
  SwishKernel op;
  op.Init(x, y, t);
  op.Process();
}
