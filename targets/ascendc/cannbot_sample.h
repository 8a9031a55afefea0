// cannbot_sample.h: the CPU-debug host runtime a sample-style kernel's main.cpp calls
// (AscendC::GmAlloc/GmFree, SetKernelMode, ICPU_RUN_KF, ICPU_SET_TILING_KEY; samples include
// it as tikicpulib.h), as cannbot runs a sample (docs/ascendc.md, "Samples").
//
// A sample is a kernel file beside a host main.cpp. cannbot uses the main.cpp twice:
//  - Discovery (a program cannbot generates and runs confined, among the sample's files and
//    data): main() runs as written. Its ICPU_RUN_KF prints the launch (kernel, block dim, each
//    argument: the size of its GmAlloc allocation, and the bytes of every allocation past the
//    op's CANNBOT_SAMPLE_TENSORS tensors and of every by-value argument), runs block 0 of
//    the kernel (every block when it calls SyncAll) on those buffers so each tensor's
//    element type shows at its first copy
//    (`cannbot-sample-type:`), prints `cannbot-sample-end` and ends the program. A program
//    that launches with <<<>>> records the same way through CANNBOT_CHEVRON, the form the
//    launch is rewritten to, and also prints the instantiation it launched.
//  - Replay (the runner's cpu-ABI call): Replay() launches the kernel with the recorded block
//    dim and arguments, the op's tensors in place of the sample's, through
//    cannbot_ascendc::Launch; for a <<<>>> program, from the entry CANNBOT_SAMPLE_PROGRAM_ENTRY
//    defines in the kernel's own translation unit. The host program is not in that build.
//
// Ownership: GmAlloc's blocks belong to the sample until GmFree.
// Thread-safety: one launch at a time, like the launch.
#ifndef CANNBOT_SAMPLE_H
#define CANNBOT_SAMPLE_H

#include <sys/mman.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cannbot_launch.h"

#ifndef CANNBOT_SAMPLE_TENSORS
#define CANNBOT_SAMPLE_TENSORS 0
#endif

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1, MIX_AIC_1_2 };

namespace cannbot_sample {

struct Allocation {
  uint8_t* data;
  uint64_t bytes;
};

inline std::vector<Allocation>& Allocations() {
  static std::vector<Allocation> allocations;
  return allocations;
}

struct KeyState {
  bool set = false;
  uint64_t key = 0;
};
inline KeyState& TilingKey() {
  static KeyState state;
  return state;
}

[[noreturn]] inline void Fail(const char* format, ...) {
  std::fflush(stdout);
  std::printf("cannbot-sample-error: ");
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
  std::printf("\n");
  std::fflush(stdout);
  std::_Exit(3);
}

constexpr uint64_t kMaxRecordedBytes = 64 * 1024;  // a tiling buffer, not a tensor

inline void PrintHex(const void* data, uint64_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (uint64_t i = 0; i < bytes; ++i) std::printf("%02x", p[i]);
  if (bytes == 0) std::printf("-");
}

inline const Allocation* Find(const void* pointer) {
  for (const Allocation& a : Allocations()) {
    if (a.data == pointer) return &a;
  }
  return nullptr;
}

template <typename A>
void Describe(size_t index, size_t* gm_seen, const A& arg) {
  if constexpr (std::is_pointer_v<A>) {
    const Allocation* a = Find(reinterpret_cast<const void*>(arg));
    if (a == nullptr) {
      Fail("argument %zu of the kernel launch is a pointer AscendC::GmAlloc (or aclrtMalloc) "
           "did not return (GM arguments must be whole device allocations)", index);
    }
    const bool past_tensors = *gm_seen >= CANNBOT_SAMPLE_TENSORS;
    if (past_tensors && a->bytes > kMaxRecordedBytes) {  // said before the line starts
      Fail("argument %zu (%llu bytes) is past the op's %d tensors, so cannbot keeps its "
           "bytes as the sample filled them; more than %llu bytes is not a tiling buffer",
           index, static_cast<unsigned long long>(a->bytes), CANNBOT_SAMPLE_TENSORS,
           static_cast<unsigned long long>(kMaxRecordedBytes));
    }
    std::printf("cannbot-sample-arg: %zu gm %llu ", index, static_cast<unsigned long long>(a->bytes));
    if (past_tensors) {
      PrintHex(a->data, a->bytes);
    } else {
      std::printf("-");
    }
    std::printf("\n");
    ++*gm_seen;
  } else {
    static_assert(std::is_trivially_copyable_v<A>,
                  "a by-value kernel argument must be trivially copyable (a tiling struct)");
    std::printf("cannbot-sample-arg: %zu value %zu ", index, sizeof(A));
    PrintHex(&arg, sizeof(A));
    std::printf("\n");
  }
}

struct View {
  const uint8_t* data;
  const uint8_t* view;
};

template <typename A>
A Viewed(A arg, const std::vector<View>& views) {
  if constexpr (std::is_pointer_v<A>) {
    for (const View& v : views) {
      if (v.data == reinterpret_cast<const uint8_t*>(arg)) {
        return reinterpret_cast<A>(const_cast<uint8_t*>(v.view));
      }
    }
  }
  return arg;
}

// Prints the launch, runs its blocks on the sample's own buffers, ends the program.
template <typename... P, typename... A>
[[noreturn]] void Discover(const char* name, void (*kernel)(P...), uint32_t block_dim,
                           A... args) {
  std::printf("cannbot-sample-launch: %s %u %zu\n", name, block_dim, sizeof...(A));
  if (TilingKey().set) {
    std::printf("cannbot-sample-key: %llu\n", static_cast<unsigned long long>(TilingKey().key));
  }
  size_t index = 0, gm = 0;
  (Describe(index++, &gm, args), ...);
  std::fflush(stdout);
  using cannbot_ascendc::R;
  R().BeginLaunch(block_dim == 0 ? 1 : block_dim);
  std::vector<View> views;
  int ordinal = 0;
  auto add_region = [&](const void* pointer) {
    const Allocation* a = Find(pointer);
    cannbot_ascendc::GmRegion r;
    r.view = a->data;  // past the tensors: dereferenced directly, as the replay allows
    if (ordinal < CANNBOT_SAMPLE_TENSORS) {  // tensors: reached through DataCopy only
      void* reserved = mmap(nullptr, a->bytes, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (reserved == MAP_FAILED) Fail("cannot reserve %llu bytes", (unsigned long long)a->bytes);
      r.view = static_cast<const uint8_t*>(reserved);
    }
    r.bytes = a->bytes;
    r.data = a->data;
    r.writable = true;
    r.kind = ordinal < CANNBOT_SAMPLE_TENSORS ? "tensor" : "argument buffer";
    r.index = ordinal;
    r.report_type = ordinal < CANNBOT_SAMPLE_TENSORS;
    ++ordinal;
    R().AddRegion(r);
    views.push_back({a->data, r.view});
  };
  (
      [&] {
        if constexpr (std::is_pointer_v<A>) add_region(reinterpret_cast<const void*>(args));
      }(),
      ...);
  R().set_tiling_key(TilingKey().key);
  // Block 0 shows the types; every block runs when it waits at a SyncAll for the others.
  auto run = [&](uint32_t) { kernel(static_cast<P>(Viewed(args, views))...); };
  auto done = [](uint32_t) {};
  cannbot_ascendc::BlockScheduler(R().block_dim(), run, done).RunAll(/*first_alone=*/true);
  std::printf("cannbot-sample-end\n");
  std::fflush(stdout);
  std::_Exit(0);
}

// ACLRT_LAUNCH_KERNEL's arguments: a by-value kernel parameter (a tiling struct) is passed by
// its host address, as the vendor's generated launch header takes it.
template <typename P, typename A>
auto BoardArg(A arg) {
  if constexpr (!std::is_pointer_v<P> && std::is_pointer_v<A>) {
    return *reinterpret_cast<const P*>(arg);
  } else {
    return arg;
  }
}
template <typename... P, typename... A>
[[noreturn]] void DiscoverBoard(const char* name, void (*kernel)(P...), uint32_t block_dim,
                                A... args) {
  static_assert(sizeof...(P) == sizeof...(A),
                "ACLRT_LAUNCH_KERNEL passes as many arguments as the kernel takes");
  Discover(name, kernel, block_dim, BoardArg<P>(args)...);
}

// One argument of the recorded launch: a GM allocation (`data` holds its bytes when it is past
// the op's tensors) or a by-value argument's bytes.
struct RecordedArg {
  bool gm;
  uint64_t bytes;
  const uint8_t* data;
};

struct Recorded {
  uint32_t block_dim;
  uint64_t tiling_key;
  const RecordedArg* args;
  size_t count;
};

inline cannbot_ascendc::Elem ElemNamed(const char* dtype) {
  using cannbot_ascendc::Elem;
  static const std::pair<const char*, Elem> kNames[] = {
      {"float32", Elem::kFloat}, {"float16", Elem::kHalf},   {"bfloat16", Elem::kBf16},
      {"int8", Elem::kInt8},     {"uint8", Elem::kUint8},    {"int16", Elem::kInt16},
      {"uint16", Elem::kUint16}, {"int32", Elem::kInt32},    {"uint32", Elem::kUint32},
      {"int64", Elem::kInt64},   {"uint64", Elem::kUint64},  {"bool", Elem::kBool}};
  for (const auto& [name, elem] : kNames) {
    if (std::strcmp(name, dtype) == 0) return elem;
  }
  cannbot_ascendc::Violation("not-emulated", "tensors of dtype %s are not launched", dtype);
}

template <typename P>
P RecordedValue(const RecordedArg& a) {
  static_assert(std::is_trivially_copyable_v<P>, "by-value kernel arguments are copied");
  alignas(P) unsigned char storage[sizeof(P)];
  std::memcpy(storage, a.data, sizeof(P));
  P value;
  std::memcpy(static_cast<void*>(&value), storage, sizeof(P));
  return value;
}

template <typename T>
struct Tag {
  using type = T;
};

template <typename... P, size_t... I, typename Arg>
void CallKernel(void (*kernel)(P...), std::index_sequence<I...>, Arg& arg) {
  kernel(arg(Tag<P>{}, I)...);
}

// Launches `kernel` as the sample did, the op's tensors in place of its first GM arguments.
// The op's tensors a replay launches: `elements` and `dtypes` per tensor, inputs first.
struct ReplayTensors {
  std::vector<const char*> dtypes;
  std::vector<const float*> inputs;
  std::vector<float*> outputs;
  std::vector<int64_t> elements;
};

template <typename... P>
void Replay(void (*kernel)(P...), const Recorded& rec, const ReplayTensors& op) {
  using cannbot_ascendc::Violation;
  const std::vector<const char*>& dtypes = op.dtypes;
  const std::vector<const float*>& inputs = op.inputs;
  const std::vector<float*>& outputs = op.outputs;
  const std::vector<int64_t>& elements = op.elements;
  if (sizeof...(P) != rec.count) {
    Violation("launch-contract", "the kernel takes %zu arguments; the sample's launch passed %zu",
              sizeof...(P), rec.count);
  }
  const size_t n_in = inputs.size(), tensors = inputs.size() + outputs.size();
  if (dtypes.size() != tensors || tensors > static_cast<size_t>(cannbot_ascendc::kMaxTensors)) {
    Violation("launch-contract", "%zu dtypes for %zu tensors", dtypes.size(), tensors);
  }
  cannbot_ascendc::LaunchExtras extras;
  size_t t = 0;
  for (const char* dtype : dtypes) extras.types[t++] = ElemNamed(dtype);
  extras.tiling_key = rec.tiling_key;
  std::vector<size_t> ordinal(rec.count, 0);
  size_t gm = 0;
  const bool pointer[] = {std::is_pointer_v<P>..., false};
  for (size_t i = 0; i < rec.count; ++i) {
    const RecordedArg& a = rec.args[i];
    if (a.gm != pointer[i]) {
      Violation("launch-contract", "argument %zu of the sample's launch is %s but the kernel's "
                "parameter is %s", i, a.gm ? "a GM buffer" : "a value",
                pointer[i] ? "a pointer" : "a value");
    }
    if (!a.gm) continue;
    ordinal[i] = gm++;
    if (ordinal[i] >= tensors) extras.buffers.push_back({a.data, a.bytes});
  }
  if (gm < tensors) {
    Violation("launch-contract", "the sample's launch passes %zu GM buffers; the op has %zu "
              "tensors", gm, tensors);
  }
  CannbotTiling tiling{};
  tiling.block_dim = rec.block_dim;
  // The statistics describe the first output, as for packages (bf16 is 16 bits, flagged).
  tiling.dtype_bits = cannbot_ascendc::ElemBytes(extras.types[n_in]) * 8;
  extras.bfloat16 = extras.types[n_in] == cannbot_ascendc::Elem::kBf16;
  cannbot_ascendc::Launch(
      tiling, extras, inputs, outputs, elements,
      [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR, GM_ADDR, GM_ADDR* buffers) {
        auto arg = [&](auto tag, size_t i) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_pointer_v<T>) {
            const size_t k = ordinal[i];
            GM_ADDR a = k < n_in ? in[k] : k < tensors ? out[k - n_in] : buffers[k - tensors];
            return reinterpret_cast<T>(a);
          } else {
            if (rec.args[i].bytes != sizeof(T)) {
              Violation("launch-contract", "argument %zu: the sample passed %llu bytes, the "
                        "kernel's parameter has %zu", i,
                        static_cast<unsigned long long>(rec.args[i].bytes), sizeof(T));
            }
            return RecordedValue<T>(rec.args[i]);
          }
        };
        CallKernel(kernel, std::index_sequence_for<P...>{}, arg);
      });
}

}  // namespace cannbot_sample

namespace AscendC {
using ::KernelMode;
inline void* GmAlloc(size_t bytes) {
  // Zeroed and 32-byte aligned, as device allocations are block-aligned.
  const size_t rounded = (bytes + 31) / 32 * 32;
  void* p = std::aligned_alloc(32, rounded == 0 ? 32 : rounded);
  if (p == nullptr) cannbot_sample::Fail("AscendC::GmAlloc(%zu): out of memory", bytes);
  std::memset(p, 0, rounded == 0 ? 32 : rounded);
  cannbot_sample::Allocations().push_back({static_cast<uint8_t*>(p), bytes});
  return p;
}
inline void GmFree(void* p) {
  auto& all = cannbot_sample::Allocations();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].data == p) {
      all.erase(all.begin() + static_cast<long>(i));
      break;
    }
  }
  std::free(p);
}
inline void SetKernelMode(KernelMode) {}
}  // namespace AscendC

#define ICPU_RUN_KF(func, blockdim, ...) \
  ::cannbot_sample::Discover(#func, func, blockdim, __VA_ARGS__)
// The replay's entry for a kernel launched with <<<>>>: defined in the kernel's own translation
// unit, where its instantiation (a template's, or a C++-linkage kernel's) can be named.
#define CANNBOT_SAMPLE_PROGRAM_ENTRY(...)                                         \
  extern "C" void cannbot_sample_program_replay(                                  \
      const ::cannbot_sample::Recorded& recorded,                                 \
      const ::cannbot_sample::ReplayTensors& tensors) {                           \
    ::cannbot_sample::Replay(&__VA_ARGS__, recorded, tensors);                    \
  }
#define ICPU_SET_TILING_KEY(key)                            \
  do {                                                      \
    ::cannbot_sample::TilingKey().set = true;               \
    ::cannbot_sample::TilingKey().key = static_cast<uint64_t>(key); \
  } while (0)

#include "cannbot_sample_chevron.h"

#endif  // CANNBOT_SAMPLE_H
