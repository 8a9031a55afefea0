// matmul_cube: C[m, n] (float) = A[m, k] (half) x B[k, n] (half) on the cube unit.
//
// C is cut into baseM x baseN tiles; core b computes tiles b, b + blockDim, ... Each tile runs
// over K in baseK steps: A's and B's slices come from GM into L1 (A1, B1) as NZ fractals,
// LoadData moves them into L0A (row-major fractals) and L0B (transposed fractals), and Mmad
// adds their product into the tile in L0C; Fixpipe writes the finished tile to GM row-major.
// Sizes must be multiples of the tile sizes, and the tiles multiples of 16.
#include "kernel_operator.h"
#include "matmul_cube_tiling.h"
using namespace AscendC;

class KernelMatmulCube {
 public:
  __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR c, const MatmulCubeTiling& t) {
    t_ = t;
    aGm_.SetGlobalBuffer((__gm__ half*)a, t.m * t.k);
    bGm_.SetGlobalBuffer((__gm__ half*)b, t.k * t.n);
    cGm_.SetGlobalBuffer((__gm__ float*)c, t.m * t.n);
    const uint32_t aBytes = t.baseM * t.baseK * sizeof(half);
    const uint32_t bBytes = t.baseK * t.baseN * sizeof(half);
    pipe_.InitBuffer(a1_, 1, aBytes);
    pipe_.InitBuffer(b1_, 1, bBytes);
    pipe_.InitBuffer(a2_, 1, aBytes);
    pipe_.InitBuffer(b2_, 1, bBytes);
    pipe_.InitBuffer(c1_, 1, t.baseM * t.baseN * sizeof(float));
  }

  __aicore__ inline void Process() {
    const uint32_t tilesN = t_.n / t_.baseN;
    const uint32_t tiles = (t_.m / t_.baseM) * tilesN;
    for (uint32_t tile = GetBlockIdx(); tile < tiles; tile += GetBlockNum()) {
      const uint32_t row = tile / tilesN * t_.baseM;
      const uint32_t col = tile % tilesN * t_.baseN;
      LocalTensor<float> c1 = c1_.AllocTensor<float>();
      for (uint32_t kk = 0; kk < t_.k; kk += t_.baseK) {
        CopyIn(row, col, kk);
        SplitA();
        SplitB();
        Compute(c1, kk == 0);
      }
      c1_.EnQue(c1);
      CopyOut(row, col);
    }
  }

 private:
  // A[row.., kk..] and B[kk.., col..] from GM into L1, each as NZ: 16-element column groups,
  // every group's rows contiguous.
  __aicore__ inline void CopyIn(uint32_t row, uint32_t col, uint32_t kk) {
    LocalTensor<half> a1 = a1_.AllocTensor<half>();
    LocalTensor<half> b1 = b1_.AllocTensor<half>();
    Nd2NzParams aParams;
    aParams.nValue = t_.baseM;
    aParams.dValue = t_.baseK;
    aParams.srcDValue = t_.k;
    aParams.dstNzC0Stride = t_.baseM;
    aParams.dstNzNStride = 1;
    DataCopy(a1, aGm_[row * t_.k + kk], aParams);
    Nd2NzParams bParams;
    bParams.nValue = t_.baseK;
    bParams.dValue = t_.baseN;
    bParams.srcDValue = t_.n;
    bParams.dstNzC0Stride = t_.baseK;
    bParams.dstNzNStride = 1;
    DataCopy(b1, bGm_[kk * t_.n + col], bParams);
    a1_.EnQue(a1);
    b1_.EnQue(b1);
  }

  // L1's NZ fractals of A (column-major over fractal rows) into L0A in row-major order.
  __aicore__ inline void SplitA() {
    LocalTensor<half> a1 = a1_.DeQue<half>();
    LocalTensor<half> a2 = a2_.AllocTensor<half>();
    const uint32_t mBlocks = t_.baseM / 16, kBlocks = t_.baseK / 16;
    for (uint32_t i = 0; i < mBlocks; ++i) {
      LoadData2DParams p;
      p.repeatTimes = kBlocks;
      p.srcStride = mBlocks;
      LoadData(a2[i * kBlocks * 256], a1[i * 256], p);
    }
    a2_.EnQue(a2);
    a1_.FreeTensor(a1);
  }

  // L1's NZ fractals of B into L0B, each transposed, in row-major order over K.
  __aicore__ inline void SplitB() {
    LocalTensor<half> b1 = b1_.DeQue<half>();
    LocalTensor<half> b2 = b2_.AllocTensor<half>();
    const uint32_t kBlocks = t_.baseK / 16, nBlocks = t_.baseN / 16;
    for (uint32_t i = 0; i < kBlocks; ++i) {
      LoadData2DParams p;
      p.repeatTimes = nBlocks;
      p.srcStride = kBlocks;
      p.ifTranspose = true;
      LoadData(b2[i * nBlocks * 256], b1[i * 256], p);
    }
    b2_.EnQue(b2);
    b1_.FreeTensor(b1);
  }

  __aicore__ inline void Compute(const LocalTensor<float>& c1, bool first) {
    LocalTensor<half> a2 = a2_.DeQue<half>();
    LocalTensor<half> b2 = b2_.DeQue<half>();
    MmadParams p;
    p.m = t_.baseM;
    p.n = t_.baseN;
    p.k = t_.baseK;
    p.cmatrixInitVal = first;  // the first K step starts C at zero, the others add to it
    Mmad(c1, a2, b2, p);
    a2_.FreeTensor(a2);
    b2_.FreeTensor(b2);
  }

  __aicore__ inline void CopyOut(uint32_t row, uint32_t col) {
    LocalTensor<float> c1 = c1_.DeQue<float>();
    FixpipeParamsV220 p;
    p.nSize = t_.baseN;
    p.mSize = t_.baseM;
    p.srcStride = t_.baseM;
    p.dstStride = t_.n;
    Fixpipe(cGm_[row * t_.n + col], c1, p);
    c1_.FreeTensor(c1);
  }

  TPipe pipe_;
  TQue<QuePosition::A1, 1> a1_;
  TQue<QuePosition::B1, 1> b1_;
  TQue<QuePosition::A2, 1> a2_;
  TQue<QuePosition::B2, 1> b2_;
  TQue<QuePosition::CO1, 1> c1_;
  GlobalTensor<half> aGm_, bGm_;
  GlobalTensor<float> cGm_;
  MatmulCubeTiling t_{};
};

extern "C" __global__ __aicore__ void matmul_cube(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                  MatmulCubeTiling tiling) {
  KernelMatmulCube op;
  op.Init(a, b, c, tiling);
  op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// The board build's launch, called by main.cpp.
void matmul_cube_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                    MatmulCubeTiling tiling) {
  matmul_cube<<<blockDim, nullptr, stream>>>(a, b, c, tiling);
}
#endif
