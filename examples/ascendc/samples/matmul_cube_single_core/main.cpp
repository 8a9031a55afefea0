// The host side of the matmul_cube sample on one core: it multiplies a 256 x 512 half matrix
// by a 512 x 256 one read from input/, one 64 x 64 tile of the float product after another,
// which goes to output/ (the 16-core sample is the faster launch of the same kernel). Built for the board with the ACL runtime, or for the CPU-debug
// simulator (ASCENDC_CPU_DEBUG) with tikicpulib.
#include <cstdint>
#include "data_utils.h"
#include "matmul_cube_tiling.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
void matmul_cube_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                    MatmulCubeTiling tiling);
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void matmul_cube(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                  MatmulCubeTiling tiling);
#endif

int32_t main(int32_t argc, char* argv[]) {
  (void)argc;
  (void)argv;
  const MatmulCubeTiling tiling{256, 256, 512, 64, 64, 64};
  const uint32_t blockDim = 1;
  const size_t aBytes = tiling.m * tiling.k * sizeof(uint16_t);  // half
  const size_t bBytes = tiling.k * tiling.n * sizeof(uint16_t);
  const size_t cBytes = tiling.m * tiling.n * sizeof(float);
#ifdef ASCENDC_CPU_DEBUG
  uint8_t* a = (uint8_t*)AscendC::GmAlloc(aBytes);
  uint8_t* b = (uint8_t*)AscendC::GmAlloc(bBytes);
  uint8_t* c = (uint8_t*)AscendC::GmAlloc(cBytes);
  ReadFile("./input/a.bin", aBytes, a);
  ReadFile("./input/b.bin", bBytes, b);
  AscendC::SetKernelMode(KernelMode::AIC_MODE);
  ICPU_RUN_KF(matmul_cube, blockDim, a, b, c, tiling);
  WriteFile("./output/c.bin", c, cBytes);
  AscendC::GmFree(a);
  AscendC::GmFree(b);
  AscendC::GmFree(c);
#else
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  uint8_t *aHost, *bHost, *cHost, *a, *b, *c;
  aclrtMallocHost((void**)&aHost, aBytes);
  aclrtMallocHost((void**)&bHost, bBytes);
  aclrtMallocHost((void**)&cHost, cBytes);
  aclrtMalloc((void**)&a, aBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&b, bBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&c, cBytes, ACL_MEM_MALLOC_HUGE_FIRST);
  ReadFile("./input/a.bin", aBytes, aHost);
  ReadFile("./input/b.bin", bBytes, bHost);
  aclrtMemcpy(a, aBytes, aHost, aBytes, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(b, bBytes, bHost, bBytes, ACL_MEMCPY_HOST_TO_DEVICE);
  matmul_cube_do(blockDim, stream, a, b, c, tiling);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(cHost, cBytes, c, cBytes, ACL_MEMCPY_DEVICE_TO_HOST);
  WriteFile("./output/c.bin", cHost, cBytes);
  aclrtFree(a);
  aclrtFree(b);
  aclrtFree(c);
  aclrtFreeHost(aHost);
  aclrtFreeHost(bHost);
  aclrtFreeHost(cHost);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
#endif
  return 0;
}
