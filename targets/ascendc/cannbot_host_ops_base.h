// cannbot_host_ops_base.h: the shared host helpers that operator packages of the current
// public CANN operator repositories (the ops-math / ops-nn layout) include beside the CANN
// API: logging and checks (`log/log.h`: OP_LOGE, OP_CHECK_IF, OP_CHECK_NULL_WITH_CONTEXT),
// integer helpers (`util/math_util.h`: Ops::Base::CeilDiv, FloorAlign ...), platform helpers
// (`util/platform_util.h`: Ops::Base::GetUbBlockSize), the elementwise InferShape helper and
// the tiling-registry headers those packages include for their namespaces. The CANN include
// paths (`log/log.h`, `op_host/tiling_util.h`, ...) are thin files that include this one.
//
// Written for cannbot from what those helpers are documented and used to do; not vendor code.
// A tiling function's error log lines are printed (tagged, like its printf) and the first one
// is kept, so a failing tiling is reported with the reason its author wrote.
//
// Nothing runs at load time. Thread-safety: single-threaded, like the launch that uses it.
#ifndef CANNBOT_HOST_OPS_BASE_H
#define CANNBOT_HOST_OPS_BASE_H

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "cannbot_host_api.h"
#include "cannbot_print.h"

namespace cannbot_host {

// The first error a package's host code logged (OP_LOGE) since the launch cleared it, for the
// tiling violation: the root cause, not the callers' "... error" lines that follow it.
inline std::string& FirstError() {
  static std::string last;
  return last;
}

inline const char* NameOf(const char* name) { return name == nullptr ? "" : name; }
inline const char* NameOf(const std::string& name) { return name.c_str(); }
template <typename Context>
inline const char* NameOf(Context* context) {
  return context == nullptr ? "" : context->GetNodeName();
}

// One log line, tagged like the host code's printf: "[E] AddExample: <message>".
inline void Log(char level, const char* node, const char* format, ...) {
  char message[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  char line[1200];
  std::snprintf(line, sizeof(line), "[%c] %s: %s", level, node, message);
  ::cannbot_ascendc::EmitPrinted(line);
  if (level == 'E' && FirstError().empty()) FirstError() = line + 4;  // without the level tag
}

}  // namespace cannbot_host

#define OP_LOG_AT(level, node, ...) \
  ::cannbot_host::Log(level, ::cannbot_host::NameOf(node), __VA_ARGS__)
#define OP_LOGD(node, ...) OP_LOG_AT('D', node, __VA_ARGS__)
#define OP_LOGI(node, ...) OP_LOG_AT('I', node, __VA_ARGS__)
#define OP_LOGW(node, ...) OP_LOG_AT('W', node, __VA_ARGS__)
#define OP_LOGE(node, ...) OP_LOG_AT('E', node, __VA_ARGS__)
#define OP_EVENT(node, ...) OP_LOG_AT('I', node, __VA_ARGS__)
#define OP_LOGE_IF(condition, result, node, ...) \
  if (condition) {                               \
    OP_LOGE(node, __VA_ARGS__);                  \
    return result;                               \
  }
#define OP_CHECK_IF(condition, log, action) \
  do {                                      \
    if (condition) {                        \
      log;                                  \
      action;                               \
    }                                       \
  } while (0)
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr)                 \
  do {                                                           \
    if ((ptr) == nullptr) {                                      \
      OP_LOGE(context, "%s is nullptr", #ptr);                   \
      return ge::GRAPH_FAILED;                                   \
    }                                                            \
  } while (0)
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr) OP_CHECK_NULL_WITH_CONTEXT(context, ptr)
#define OP_TILING_CHECK(condition, log, action) OP_CHECK_IF(condition, log, action)
#define OPS_LOG_E(node, ...) OP_LOGE(node, __VA_ARGS__)
#define OPS_LOG_D(node, ...) OP_LOGD(node, __VA_ARGS__)
#define OPS_LOG_I(node, ...) OP_LOGI(node, __VA_ARGS__)
#define OPS_LOG_W(node, ...) OP_LOGW(node, __VA_ARGS__)

namespace Ops {
namespace Base {

template <typename T, typename U>
inline constexpr auto CeilDiv(T x, U y) -> std::common_type_t<T, U> {
  return y == 0 ? x : (x + y - 1) / y;
}
template <typename T, typename U>
inline constexpr auto FloorDiv(T x, U y) -> std::common_type_t<T, U> {
  return y == 0 ? x : x / y;
}
template <typename T, typename U>
inline constexpr auto CeilAlign(T x, U align) -> std::common_type_t<T, U> {
  return align == 0 ? x : (x + align - 1) / align * align;
}
template <typename T, typename U>
inline constexpr auto FloorAlign(T x, U align) -> std::common_type_t<T, U> {
  return align == 0 ? x : x / align * align;
}

// The unified buffer's block (32 bytes) and vector register (256 bytes) on the emulated core.
template <typename Context>
inline int64_t GetUbBlockSize(Context*) {
  return 32;
}
template <typename Context>
inline int64_t GetVRegSize(Context*) {
  return 256;
}

// A scalar (rank-0) shape read as one element.
inline const gert::Shape& EnsureNotScalar(const gert::Shape& shape) {
  static const gert::Shape kOne = {1};
  return shape.GetDimNum() == 0 ? kOne : shape;
}

// The elementwise InferShape: every output has the broadcast of the inputs' shapes.
inline ge::graphStatus InferShape4Elewise(gert::InferShapeContext* context) {
  gert::Shape out;
  for (size_t i = 0; context->GetInputShape(i) != nullptr; ++i) {
    const gert::Shape& in = *context->GetInputShape(i);
    const size_t rank = std::max(out.GetDimNum(), in.GetDimNum());
    gert::Shape merged;
    for (size_t d = 0; d < rank; ++d) {
      const size_t a = d + out.GetDimNum() - rank, b = d + in.GetDimNum() - rank;
      const int64_t x = d + out.GetDimNum() >= rank ? out.GetDim(a) : 1;
      const int64_t y = d + in.GetDimNum() >= rank ? in.GetDim(b) : 1;
      if (x != y && x != 1 && y != 1) {
        OP_LOGE(context, "input %zu (dimension %zu is %lld) does not broadcast against %lld", i, d,
                static_cast<long long>(y), static_cast<long long>(x));
        return ge::GRAPH_FAILED;
      }
      merged.AppendDim(x == 1 ? y : x);
    }
    out = merged;
  }
  for (size_t i = 0; context->GetOutputShape(i) != nullptr; ++i) *context->GetOutputShape(i) = out;
  return ge::GRAPH_SUCCESS;
}

}  // namespace Base

namespace Math {
namespace OpTiling {}
}  // namespace Math
namespace NN {
namespace OpTiling {}
}  // namespace NN
}  // namespace Ops

#endif  // CANNBOT_HOST_OPS_BASE_H
