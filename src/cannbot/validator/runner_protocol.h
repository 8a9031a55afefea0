// The wire protocol between the validating process and cannbot-runner, the child process
// that loads untrusted kernels.
//
// Tensors never cross the pipes: they live in one shared-memory region (a memfd the parent
// creates and the child maps at descriptor 3). Requests and replies travel over a private
// Unix socket at descriptor 4; the child's stdout and stderr go to a size-capped file, so
// nothing a kernel prints can be mistaken for a reply. Every message carries a per-run nonce and a sequence
// number. The child is untrusted once a kernel is loaded, so the parent treats every reply as
// a claim: it verifies outputs itself and takes timings from its own clock.
//
// Header-only and dependency-free: the runner does not link the core library.
#pragma once

#include <cstdint>

namespace cannbot::runner_protocol {

inline constexpr uint32_t kMagic = 0x434e4252;  // "CNBR"
inline constexpr uint32_t kMaxPayload = 1u << 20;
inline constexpr int kSharedMemoryFd = 3;
inline constexpr int kChannelFd = 4;
// Where asked (RunnerConfig::count_channel): the write end of a pipe that the ascendc
// emulation sends its counts down as it makes them (targets/ascendc/
// cannbot_ascendc_count_channel.h); the runner itself never touches it.
inline constexpr int kCountChannelFd = 5;
inline constexpr int kMaxSlots = 4;
// The runner's exit status after its sandbox trapped a forbidden system call.
inline constexpr int kForbiddenSyscallExit = 97;
inline constexpr int kMaxArgs = 64;

enum class Type : uint32_t {
  kLoad = 1,   // LoadRequest: dlopen a shared object and resolve the kernel's symbol
  kCall = 2,   // CallRequest: call a loaded kernel `repetitions` times
  kQuit = 3,
  kSeal = 4,   // every kernel is loaded: tighten the sandbox (no more file opens)
  kReady = 99,   // the runner's first message, once confined; payload: warnings, one a line
  kOk = 100,   // reply; to kCall it carries a CallReply
  kError = 101,  // reply; payload is a human-readable message
};

struct Header {
  uint32_t magic;
  uint32_t type;
  uint64_t nonce;
  uint32_t size;  // payload bytes that follow
  uint32_t sequence;
};

enum class ArgKind : uint32_t {
  kTensor = 0,   // value: byte offset into the shared region
  kInt64 = 1,    // value: the integer
  kFloat32 = 2,  // value: the float's bit pattern in the low 32 bits
};

struct Arg {
  uint32_t kind;
  uint32_t reserved;
  uint64_t value;
};

// Followed by path_size bytes of path, symbol_size bytes of symbol, arg_count uint32 kinds.
struct LoadRequest {
  uint32_t slot;
  uint32_t path_size;
  uint32_t symbol_size;
  uint32_t arg_count;
};

// CallRequest::flags.
// Every call starts with flush-to-zero and denormals-are-zero set (and must leave them so):
// how much of a kernel's time subnormal numbers cost.
inline constexpr uint32_t kCallFlushDenormals = 1u << 0;

// Followed by set_count * arg_count Args; call i uses argument set i % set_count, so a batch
// can rotate over several buffers.
struct CallRequest {
  uint32_t slot;
  uint32_t repetitions;
  uint32_t set_count;
  uint32_t arg_count;
  uint32_t flags;  // kCall* bits
  uint32_t reserved;
};

// MXCSR exception flags (CallReply::fp_exceptions): sticky, raised by the SSE/AVX unit.
inline constexpr uint32_t kFpInvalid = 0x01;
inline constexpr uint32_t kFpDenormalOperand = 0x02;  // an operand was subnormal
inline constexpr uint32_t kFpDivideByZero = 0x04;
inline constexpr uint32_t kFpOverflow = 0x08;
inline constexpr uint32_t kFpUnderflow = 0x10;  // a result was subnormal (or flushed) and inexact
inline constexpr uint32_t kFpInexact = 0x20;

struct CallReply {
  uint64_t elapsed_ns;     // the child's own measurement, informative only
  uint32_t fp_exceptions;  // MXCSR flags raised by the calls (kFp*), informative only
  uint32_t reserved;
};

}  // namespace cannbot::runner_protocol
