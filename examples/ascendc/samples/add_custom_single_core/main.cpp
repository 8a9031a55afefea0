// The host side of the add_custom sample on a single core (the slow baseline of add_custom:
// the same kernel, one block instead of eight): it adds two 8 x 2048 half tensors read from
// input/, and the sum goes to output/. Built for the board with the ACL runtime, or for the
// CPU-debug simulator (ASCENDC_CPU_DEBUG) with tikicpulib.
#include <cstdint>
#include "add_custom_tiling.h"
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z,
                   AddCustomTilingData tiling);
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 AddCustomTilingData tiling);
#endif

int32_t main(int32_t argc, char* argv[]) {
  (void)argc;
  (void)argv;
  const uint32_t blockDim = 1;
  const uint32_t totalLength = 8 * 2048;
  const size_t bytes = totalLength * sizeof(uint16_t);  // half
  AddCustomTilingData tiling{totalLength, 8};
#ifdef ASCENDC_CPU_DEBUG
  uint8_t* x = (uint8_t*)AscendC::GmAlloc(bytes);
  uint8_t* y = (uint8_t*)AscendC::GmAlloc(bytes);
  uint8_t* z = (uint8_t*)AscendC::GmAlloc(bytes);
  ReadFile("./input/input_x.bin", bytes, x);
  ReadFile("./input/input_y.bin", bytes, y);
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  ICPU_RUN_KF(add_custom, blockDim, x, y, z, tiling);
  WriteFile("./output/output_z.bin", z, bytes);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
#else
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  uint8_t *xHost, *yHost, *zHost, *x, *y, *z;
  aclrtMallocHost((void**)&xHost, bytes);
  aclrtMallocHost((void**)&yHost, bytes);
  aclrtMallocHost((void**)&zHost, bytes);
  aclrtMalloc((void**)&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc((void**)&z, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  ReadFile("./input/input_x.bin", bytes, xHost);
  ReadFile("./input/input_y.bin", bytes, yHost);
  aclrtMemcpy(x, bytes, xHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  aclrtMemcpy(y, bytes, yHost, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  add_custom_do(blockDim, stream, x, y, z, tiling);
  aclrtSynchronizeStream(stream);
  aclrtMemcpy(zHost, bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  WriteFile("./output/output_z.bin", zHost, bytes);
  aclrtFree(x);
  aclrtFree(y);
  aclrtFree(z);
  aclrtFreeHost(xHost);
  aclrtFreeHost(yHost);
  aclrtFreeHost(zHost);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
#endif
  return 0;
}
