// acl/acl.h: the part of the ACL runtime API a sample's host program touches (its data_utils.h
// includes this header unconditionally; a program without a CPU-debug launch runs its board
// branch on it), on the host: device memory is AscendC::GmAlloc memory, copies are memcpy,
// streams, contexts and events are tokens, and every call succeeds. Written from the public
// ACL API reference; the kernel is launched by ICPU_RUN_KF or by the ACLRT_LAUNCH_KERNEL of
// the generated aclrtlaunch_<kernel>.h (cannbot_sample.h), never through this header.
#ifndef CANNBOT_ACL_ACL_H
#define CANNBOT_ACL_ACL_H

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "../cannbot_sample.h"

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtContext;
typedef void* aclrtEvent;
typedef uint16_t aclFloat16;

constexpr aclError ACL_ERROR_NONE = 0;
constexpr aclError ACL_SUCCESS = 0;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
} aclrtMemMallocPolicy;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

inline aclError aclInit(const char*) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtGetDevice(int32_t* device) {
  *device = 0;
  return ACL_SUCCESS;
}
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtCreateContext(aclrtContext* context, int32_t) {
  static int token;
  *context = &token;
  return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* stream) {
  static int token;
  *stream = &token;
  return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtMalloc(void** p, size_t bytes, aclrtMemMallocPolicy) {
  *p = AscendC::GmAlloc(bytes);
  return ACL_SUCCESS;
}
inline aclError aclrtMallocAlign32(void** p, size_t bytes, aclrtMemMallocPolicy policy) {
  return aclrtMalloc(p, bytes, policy);  // GmAlloc memory is 32-byte aligned already
}
inline aclError aclrtFree(void* p) {
  AscendC::GmFree(p);
  return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** p, size_t bytes) {
  *p = std::calloc(bytes == 0 ? 1 : bytes, 1);
  return *p == nullptr ? 1 : ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* p) {
  std::free(p);
  return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t dst_bytes, const void* src, size_t bytes,
                            aclrtMemcpyKind) {
  if (bytes > dst_bytes) return 1;
  std::memcpy(dst, src, bytes);
  return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* p, size_t max_bytes, int32_t value, size_t bytes) {
  if (bytes > max_bytes) return 1;
  std::memset(p, value, bytes);
  return ACL_SUCCESS;
}
// The asynchronous forms complete at once: there is one stream, and it is the host.
inline aclError aclrtMemcpyAsync(void* dst, size_t dst_bytes, const void* src, size_t bytes,
                                 aclrtMemcpyKind kind, aclrtStream) {
  return aclrtMemcpy(dst, dst_bytes, src, bytes, kind);
}
inline aclError aclrtMemsetAsync(void* p, size_t max_bytes, int32_t value, size_t bytes,
                                 aclrtStream) {
  return aclrtMemset(p, max_bytes, value, bytes);
}
inline aclError aclrtGetDeviceCount(uint32_t* count) {
  *count = 1;
  return ACL_SUCCESS;
}
// Events: a board program times its launches with them; the discovery run ends at the first
// launch, so they never measure anything here.
inline aclError aclrtCreateEvent(aclrtEvent* event) {
  static int token;
  *event = &token;
  return ACL_SUCCESS;
}
inline aclError aclrtDestroyEvent(aclrtEvent) { return ACL_SUCCESS; }
inline aclError aclrtRecordEvent(aclrtEvent, aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeEvent(aclrtEvent) { return ACL_SUCCESS; }
inline aclError aclrtEventElapsedTime(float* ms, aclrtEvent, aclrtEvent) {
  *ms = 0.0f;
  return ACL_SUCCESS;
}
inline const char* aclGetRecentErrMsg() { return ""; }

inline float aclFloat16ToFloat(aclFloat16 value) {
  _Float16 h;
  std::memcpy(&h, &value, sizeof(h));
  return static_cast<float>(h);
}
inline aclFloat16 aclFloatToFloat16(float value) {
  const _Float16 h = static_cast<_Float16>(value);
  aclFloat16 bits;
  std::memcpy(&bits, &h, sizeof(bits));
  return bits;
}

#endif  // CANNBOT_ACL_ACL_H
