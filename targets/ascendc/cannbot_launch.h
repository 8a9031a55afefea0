// cannbot_launch.h: runs an emulated Ascend C kernel behind the cpu target's fp32 ABI.
//
// cannbot's generated wrapper (one per op) calls the kernel's host tiling function, then
// Launch(), which
//   1. checks the tiling (block_dim 1..65535, dtype_bits 16 or 32; 16 with
//      LaunchExtras::bfloat16 is bf16, else half), unless LaunchExtras::types names every
//      tensor's element type (operator packages: one per tensor, integers included);
//   2. copies the fp32 tensors into a private global-memory arena, converting them to the
//      element type (half: round to nearest even, finite values beyond +-65504 saturate to
//      +-65504; integers: nearest, saturated to the type's range; the validator rounds its
//      reference inputs the same way);
//   3. runs every block, one after another (a block waiting at SyncAll is set aside until the
//      others arrive: cannbot_ascendc_blocks.h), with GetBlockIdx/GetBlockNum set; the kernel
//      sees GM addresses that are reserved but not mapped, so only DataCopy can reach the data;
//   4. checks the end-of-kernel rules after each block (every tensor freed, queues empty);
//   5. copies the outputs back (elements the kernel never changed keep their exact fp32 bits,
//      so the validator's never-written poison survives fp16 round trips);
//   6. prints one `cannbot-ascendc-stats: {json}` line (format: docs/kernel-abi.md); where the
//      validator passed a count channel, every count also went down it as it was made
//      (cannbot_ascendc_count_channel.h).
// Broken rules print `cannbot-ascendc-violation: <rule>: <sentence>` and abort.
//
// Wrapper shape (swish):
//   extern "C" void swish(const float* x, float* y, int64_t n) {
//     CannbotTiling tiling{};
//     swish_tiling(n, &tiling);
//     cannbot_ascendc::Launch(tiling, {x}, {y}, {n, n},
//         [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR t) { swish_kernel(in[0], out[0], t); });
//   }
//
// Ownership: Launch borrows the caller's buffers for the call; the arena is freed on return.
// Thread-safety: one launch at a time per process.
#ifndef CANNBOT_LAUNCH_H
#define CANNBOT_LAUNCH_H

#include <sys/mman.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel_operator.h"
#include "cannbot_launch_widen.h"

namespace cannbot_ascendc {

constexpr int kMaxTensors = 32;
constexpr uint64_t kGmAlign = 512;  // device allocations start 512-byte aligned

// fp32 -> half as the launcher converts inputs: nearest even, saturating finite values.
inline half QuantizeToHalf(float f) {
  if (std::isfinite(f) && std::fabs(f) >= 65504.0f)
    return static_cast<half>(f > 0 ? 65504.0f : -65504.0f);
  return static_cast<half>(f);
}

// The element type of one launched tensor. kDefault: the tiling's dtype_bits decides (float,
// or half / bfloat16_t by LaunchExtras::bfloat16).
enum class Elem : uint8_t {
  kDefault, kFloat, kHalf, kBf16, kInt8, kUint8, kInt16, kUint16, kInt32, kUint32, kInt64,
  kUint64, kBool
};

inline uint32_t ElemBytes(Elem e) {
  switch (e) {
    case Elem::kHalf: case Elem::kBf16: case Elem::kInt16: case Elem::kUint16: return 2;
    case Elem::kInt8: case Elem::kUint8: case Elem::kBool: return 1;
    case Elem::kInt64: case Elem::kUint64: return 8;
    default: return 4;
  }
}

namespace launch_detail {

// v rounded to the nearest integer and saturated to the type's range, whose top is taken as
// the largest float not above the type's maximum (INT32_MAX itself is no float: the reference,
// which computes in fp32, must see exactly the number the kernel does); NaN is 0.
template <typename I>
inline I SaturatedInteger(float v) {
  const double lo = static_cast<double>(std::numeric_limits<I>::lowest());
  constexpr int kDigits = std::numeric_limits<I>::digits;  // value bits
  const float top = kDigits <= 24 ? static_cast<float>(std::numeric_limits<I>::max())
                                  : std::nextafter(std::ldexp(1.0f, kDigits), 0.0f);
  if (std::isnan(v)) return 0;
  const double r = std::nearbyint(static_cast<double>(v));
  return r <= lo ? std::numeric_limits<I>::lowest()
                 : r >= static_cast<double>(top) ? static_cast<I>(top) : static_cast<I>(r);
}

template <typename E>
inline void Put(uint8_t* dst, E value) { std::memcpy(dst, &value, sizeof(E)); }
template <typename E>
inline float Get(const uint8_t* src) {
  E value;
  std::memcpy(&value, src, sizeof(E));
  return static_cast<float>(value);
}

inline bool IsIntegerElem(Elem e) {
  return e != Elem::kDefault && e != Elem::kFloat && e != Elem::kHalf && e != Elem::kBf16;
}

// A host fp32 value as the launch stores it in a tensor of type e.
inline void StoreElem(Elem e, float v, uint8_t* dst) {
  switch (e) {
    case Elem::kHalf: return Put(dst, QuantizeToHalf(v));
    case Elem::kBf16: return Put(dst, bfloat16_t(v));
    case Elem::kInt8: return Put(dst, SaturatedInteger<int8_t>(v));
    case Elem::kUint8: return Put(dst, SaturatedInteger<uint8_t>(v));
    case Elem::kInt16: return Put(dst, SaturatedInteger<int16_t>(v));
    case Elem::kUint16: return Put(dst, SaturatedInteger<uint16_t>(v));
    case Elem::kInt32: return Put(dst, SaturatedInteger<int32_t>(v));
    case Elem::kUint32: return Put(dst, SaturatedInteger<uint32_t>(v));
    case Elem::kInt64: return Put(dst, SaturatedInteger<int64_t>(v));
    case Elem::kUint64: return Put(dst, SaturatedInteger<uint64_t>(v));
    case Elem::kBool: return Put(dst, static_cast<uint8_t>(v != 0.0f));
    default: return Put(dst, v);
  }
}

// A tensor element of type e as an fp32 value (bool: any non-zero byte is 1).
inline float LoadElem(Elem e, const uint8_t* src) {
  switch (e) {
    case Elem::kHalf: return Get<half>(src);
    case Elem::kBf16: return Get<bfloat16_t>(src);
    case Elem::kInt8: return Get<int8_t>(src);
    case Elem::kUint8: return Get<uint8_t>(src);
    case Elem::kInt16: return Get<int16_t>(src);
    case Elem::kUint16: return Get<uint16_t>(src);
    case Elem::kInt32: return Get<int32_t>(src);
    case Elem::kUint32: return Get<uint32_t>(src);
    case Elem::kInt64: return Get<int64_t>(src);
    case Elem::kUint64: return Get<uint64_t>(src);
    case Elem::kBool: return *src != 0 ? 1.0f : 0.0f;
    default: return Get<float>(src);
  }
}

struct LaunchShape {
  uint64_t offset[kMaxTensors] = {};
  uint64_t bytes[kMaxTensors] = {};
  uint64_t total = 0;
};

inline void PrintCounters(char* out, size_t cap, const Counters& c) {
  std::snprintf(out, cap,
                "{\"gm_to_ub_bytes\":%llu,\"ub_to_gm_bytes\":%llu,\"ub_to_ub_bytes\":%llu,"
                "\"gm_to_ub_copies\":%llu,\"ub_to_gm_copies\":%llu,\"vector_instructions\":%llu,"
                "\"vector_repeats\":%llu,\"vector_bytes\":%llu,\"vector_complex_repeats\":%llu,"
                "\"scalar_ops\":%llu,\"cube_fractals\":%llu,\"cube_move_bytes\":%llu,"
                "\"gm_raw_pointers\":%llu,\"ub_raw_pointers\":%llu,\"reg_instructions\":%llu}",
                static_cast<unsigned long long>(c.gm_to_ub_bytes),
                static_cast<unsigned long long>(c.ub_to_gm_bytes),
                static_cast<unsigned long long>(c.ub_to_ub_bytes),
                static_cast<unsigned long long>(c.gm_to_ub_copies),
                static_cast<unsigned long long>(c.ub_to_gm_copies),
                static_cast<unsigned long long>(c.vector_instructions),
                static_cast<unsigned long long>(c.vector_repeats),
                static_cast<unsigned long long>(c.vector_bytes),
                static_cast<unsigned long long>(c.vector_complex_repeats),
                static_cast<unsigned long long>(c.scalar_ops),
                static_cast<unsigned long long>(c.cube_fractals),
                static_cast<unsigned long long>(c.cube_move_bytes),
                static_cast<unsigned long long>(c.gm_raw_pointers),
                static_cast<unsigned long long>(c.ub_raw_pointers),
                static_cast<unsigned long long>(c.reg_instructions));
}

// What the queues of one finished block say about overlap.
struct PipelineFacts {
  int buffer_num = 0;  // fewest buffers among queues that carried copies; 0: none did
  uint64_t tiles = 0;  // most EnQue calls on one such queue
  int max_occupancy = 0;
};

inline PipelineFacts BlockPipeline() {
  PipelineFacts f;
  for (const QueueState& q : R().queues()) {
    if (q.max_occupancy > f.max_occupancy) f.max_occupancy = q.max_occupancy;
    if (!q.carried_copies) continue;
    if (f.buffer_num == 0 || q.buffer_num < f.buffer_num) f.buffer_num = q.buffer_num;
    if (q.enqueues > f.tiles) f.tiles = q.enqueues;
  }
  return f;
}

}  // namespace launch_detail

// What an operator package's launch adds (docs/ascendc.md, "Operator packages"): the tiling
// key its host tiling chose and the workspace it asked for, a writable GM region the kernel
// receives as its `workspace` argument (null when 0 bytes).
struct LaunchExtras {
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
  // With dtype_bits 16: the tensors are bfloat16_t, not half (converted round-to-nearest-even;
  // bf16 has float's range, so nothing saturates).
  bool bfloat16 = false;
  // Each tensor's element type, inputs first; kDefault: by dtype_bits and bfloat16.
  Elem types[kMaxTensors] = {};
  // A sample's other GM arguments (its tiling or workspace buffers as its main() filled them,
  // cannbot_sample.h): copied into the arena as writable regions of any element type that the
  // kernel may also dereference, their addresses given to a body that takes a fifth argument.
  std::vector<std::pair<const uint8_t*, uint64_t>> buffers;
};

// `body(in, out, workspace, tiling)` runs one block.
template <typename Body>
inline void Launch(const CannbotTiling& tiling, const LaunchExtras& extras,
                   const std::vector<const float*>& inputs, const std::vector<float*>& outputs,
                   const std::vector<int64_t>& elements, Body&& body) {
  const size_t n_in = inputs.size(), n_out = outputs.size();
  if (tiling.block_dim < 1 || tiling.block_dim > 65535) {
    Violation("tiling", "block_dim is %u; the tiling function must choose 1..65535 blocks",
              tiling.block_dim);
  }
  bool typed = true;
  for (size_t t = 0; t < n_in + n_out && t < static_cast<size_t>(kMaxTensors); ++t) {
    typed = typed && extras.types[t] != Elem::kDefault;
  }
  if (!typed && tiling.dtype_bits != 16 && tiling.dtype_bits != 32) {
    Violation("tiling", "dtype_bits is %u; it must be 32 (float tensors) or 16 (half tensors)",
              tiling.dtype_bits);
  }
  if (elements.size() != n_in + n_out || n_in + n_out > static_cast<size_t>(kMaxTensors) ||
      n_out == 0) {
    Violation("launch-contract",
              "Launch got %zu inputs, %zu outputs and %zu element counts; it needs one count "
              "per tensor, inputs first",
              n_in, n_out, elements.size());
  }
  const bool is_half = tiling.dtype_bits == 16;
  const Elem by_tiling = !is_half ? Elem::kFloat : extras.bfloat16 ? Elem::kBf16 : Elem::kHalf;
  std::vector<const float*> host;
  for (const float* p : inputs) host.push_back(p);
  for (float* p : outputs) host.push_back(p);
  std::vector<int64_t> count(elements.begin(), elements.end());

  Elem type[kMaxTensors];
  for (size_t t = 0; t < host.size(); ++t) {
    type[t] = extras.types[t] == Elem::kDefault ? by_tiling : extras.types[t];
  }
  launch_detail::LaunchShape shape;
  for (size_t t = 0; t < host.size(); ++t) {
    if (count[t] < 1 || host[t] == nullptr) {
      Violation("launch-contract", "tensor %zu has %lld elements or no buffer", t,
                static_cast<long long>(count[t]));
    }
    shape.offset[t] = shape.total;
    shape.bytes[t] = static_cast<uint64_t>(count[t]) * ElemBytes(type[t]);
    // A gap of one alignment unit keeps neighbouring tensors from touching.
    shape.total += (shape.bytes[t] + 2 * kGmAlign - 1) / kGmAlign * kGmAlign;
  }
  const uint64_t workspace_offset = shape.total;
  if (extras.workspace_bytes > (uint64_t{1} << 32)) {
    Violation("tiling", "the tiling asked for a %llu-byte workspace; cannbot's launch allows 4 GiB",
              static_cast<unsigned long long>(extras.workspace_bytes));
  }
  shape.total += (extras.workspace_bytes + 2 * kGmAlign - 1) / kGmAlign * kGmAlign;
  std::vector<uint64_t> buffer_offset;
  for (const auto& buffer : extras.buffers) {
    buffer_offset.push_back(shape.total);
    shape.total += (buffer.second + 2 * kGmAlign - 1) / kGmAlign * kGmAlign;
  }
  const uint64_t page = 4096;
  const uint64_t arena_bytes = (shape.total + page - 1) / page * page;
  uint8_t* arena = static_cast<uint8_t*>(std::aligned_alloc(page, arena_bytes));
  if (arena == nullptr) Violation("launch-contract", "out of memory for the GM arena");
  // NaN bytes between the tensors: a tail read past a tensor's end sees them, never stale data.
  std::memset(arena, 0xFF, arena_bytes);
  // The kernel-visible view: reserved, never mapped. A raw dereference of a GM_ADDR faults.
  void* reserved =
      mmap(nullptr, arena_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  const uint8_t* view = reserved == MAP_FAILED ? arena : static_cast<const uint8_t*>(reserved);

  // A half or bf16 output's bytes before the kernel runs: elements it never changed go back as
  // the caller's exact fp32 values (the validator's never-written poison survives). An integer
  // output starts as the poison's own bytes instead (its conversion would be a common value,
  // 0 for a NaN) and every element goes back converted: one the kernel never wrote reads as
  // those bytes, a wrong value in an exact comparison.
  std::vector<std::vector<uint8_t>> initial(host.size());
  for (size_t t = 0; t < host.size(); ++t) {
    uint8_t* dst = arena + shape.offset[t];
    if (type[t] == Elem::kFloat) {
      std::memcpy(dst, host[t], shape.bytes[t]);
      continue;
    }
    const uint32_t size = ElemBytes(type[t]);
    const bool raw = t >= n_in && launch_detail::IsIntegerElem(type[t]);
    for (int64_t i = 0; i < count[t]; ++i) {
      uint8_t* element = dst + static_cast<uint64_t>(i) * size;
      if (raw) {
        for (uint32_t b = 0; b < size; b += 4) {
          std::memcpy(element + b, &host[t][i], size - b < 4 ? size - b : 4);
        }
      } else {
        launch_detail::StoreElem(type[t], host[t][i], element);
      }
    }
    if (t >= n_in && !raw) initial[t].assign(dst, dst + shape.bytes[t]);
  }

  alignas(64) static uint8_t tiling_copy[CANNBOT_TILING_DATA_BYTES];
  Runtime& rt = R();
  rt.BeginLaunch(tiling.block_dim);
  OpenCountChannel(tiling.block_dim, tiling.dtype_bits, is_half && extras.bfloat16);
  for (size_t t = 0; t < host.size(); ++t) {
    GmRegion r;
    r.view = view + shape.offset[t];
    r.bytes = shape.bytes[t];
    r.data = arena + shape.offset[t];
    r.writable = t >= n_in;
    r.dtype_bits = static_cast<int>(ElemBytes(type[t]) * 8);
    r.kind = t >= n_in ? "output" : "input";
    r.index = static_cast<int>(t >= n_in ? t - n_in : t);
    rt.AddRegion(r);
  }
  if (extras.workspace_bytes > 0) {
    GmRegion w;
    w.view = view + workspace_offset;
    w.bytes = extras.workspace_bytes;
    w.data = arena + workspace_offset;
    w.writable = true;
    w.dtype_bits = 0;  // any element type
    w.kind = "the workspace";
    rt.AddRegion(w);
  }
  std::vector<GM_ADDR> buffer_addr;
  for (size_t i = 0; i < extras.buffers.size(); ++i) {
    std::memcpy(arena + buffer_offset[i], extras.buffers[i].first, extras.buffers[i].second);
    // Addressed directly, unlike the tensors: samples read their tiling through the pointer
    // (the CPU-debug GET_TILING_DATA they define), as the vendor's CPU simulator allows.
    GmRegion a;
    a.view = arena + buffer_offset[i];
    a.bytes = extras.buffers[i].second;
    a.data = arena + buffer_offset[i];
    a.writable = true;
    a.kind = "argument buffer";
    a.index = static_cast<int>(i);
    rt.AddRegion(a);
    buffer_addr.push_back(const_cast<GM_ADDR>(a.view));
  }
  rt.set_tiling_key(extras.tiling_key);
  GmRegion tiling_region;
  tiling_region.view = tiling_copy;
  tiling_region.bytes = sizeof(tiling_copy);
  tiling_region.data = tiling_copy;
  tiling_region.kind = "the tiling block";
  rt.AddRegion(tiling_region);

  Counters total, max_block;
  int buffer_num = 0;
  uint64_t tiles = 0, barriers = 0;
  int occupancy = 0;
  uint32_t high_water = 0;
  uint64_t cube_high_water[kMemCount] = {};
  auto run_block = [&](uint32_t) {
    // A fresh copy per block: a kernel that scribbles on its tiling cannot affect the next.
    std::memcpy(tiling_copy, tiling.data, sizeof(tiling_copy));
    GM_ADDR in_addr[kMaxTensors];
    GM_ADDR out_addr[kMaxTensors];
    for (size_t t = 0; t < n_in; ++t) in_addr[t] = const_cast<GM_ADDR>(view + shape.offset[t]);
    for (size_t t = 0; t < n_out; ++t) {
      out_addr[t] = const_cast<GM_ADDR>(view + shape.offset[n_in + t]);
    }
    GM_ADDR workspace =
        extras.workspace_bytes > 0 ? const_cast<GM_ADDR>(view + workspace_offset) : nullptr;
    if constexpr (std::is_invocable_v<Body, GM_ADDR*, GM_ADDR*, GM_ADDR, GM_ADDR, GM_ADDR*>) {
      body(in_addr, out_addr, workspace, static_cast<GM_ADDR>(tiling_copy), buffer_addr.data());
    } else {
      body(in_addr, out_addr, workspace, static_cast<GM_ADDR>(tiling_copy));
    }
  };
  auto block_done = [&](uint32_t) {
    total.Add(rt.counters());
    max_block.Max(rt.counters());
    const launch_detail::PipelineFacts f = launch_detail::BlockPipeline();
    if (f.buffer_num > 0 && (buffer_num == 0 || f.buffer_num < buffer_num)) {
      buffer_num = f.buffer_num;
    }
    if (f.tiles > tiles) tiles = f.tiles;
    if (f.max_occupancy > occupancy) occupancy = f.max_occupancy;
    if (rt.pipe_all_barriers() > barriers) barriers = rt.pipe_all_barriers();
    if (rt.ub_high_water() > high_water) high_water = rt.ub_high_water();
    for (int m = kMemL1; m <= kMemL0C; ++m) {
      if (rt.high_water(m) > cube_high_water[m]) cube_high_water[m] = rt.high_water(m);
    }
  };
  rt.set_has_workspace(extras.workspace_bytes > 0);
  BlockScheduler(tiling.block_dim, run_block, block_done).RunAll();
  CloseCountChannel();
  rt.EndLaunch();

  for (size_t t = n_in; t < host.size(); ++t) {
    float* out = const_cast<float*>(host[t]);
    const uint8_t* src = arena + shape.offset[t];
    if (type[t] == Elem::kFloat) {
      std::memcpy(out, src, shape.bytes[t]);
      continue;
    }
    const uint32_t size = ElemBytes(type[t]);
    for (int64_t i = 0; i < count[t]; ++i) {
      const uint64_t at = static_cast<uint64_t>(i) * size;
      if (!initial[t].empty() && std::memcmp(src + at, initial[t].data() + at, size) == 0) {
        continue;
      }
      out[i] = launch_detail::LoadElem(type[t], src + at);
    }
  }
  if (reserved != MAP_FAILED) munmap(reserved, arena_bytes);
  std::free(arena);

  uint64_t input_bytes = 0, output_bytes = 0;
  for (size_t t = 0; t < host.size(); ++t)
    (t < n_in ? input_bytes : output_bytes) += shape.bytes[t];
  if (buffer_num == 0) buffer_num = 1;
  const bool overlap = buffer_num >= 2 && tiles >= 2 && barriers < tiles;
  char total_json[640], max_json[640];
  launch_detail::PrintCounters(total_json, sizeof(total_json), total);
  launch_detail::PrintCounters(max_json, sizeof(max_json), max_block);
  std::fflush(stdout);
  std::printf(
      "cannbot-ascendc-stats: {\"version\":1,\"block_dim\":%u,\"dtype_bits\":%u,"
      "\"input_bytes\":%llu,\"output_bytes\":%llu,\"ub_capacity_bytes\":%u,"
      "\"ub_high_water_bytes\":%u,\"buffer_num\":%d,\"max_queue_occupancy\":%d,\"tiles\":%llu,"
      "\"pipe_all_barriers\":%llu,\"overlap\":%s,\"bfloat16\":%s,\"l1_high_water_bytes\":%llu,"
      "\"l0a_high_water_bytes\":%llu,\"l0b_high_water_bytes\":%llu,\"l0c_high_water_bytes\":%llu,"
      "\"total\":%s,\"max_block\":%s}\n",
      tiling.block_dim, tiling.dtype_bits, static_cast<unsigned long long>(input_bytes),
      static_cast<unsigned long long>(output_bytes), kUbBytes, high_water, buffer_num, occupancy,
      static_cast<unsigned long long>(tiles), static_cast<unsigned long long>(barriers),
      overlap ? "true" : "false", is_half && extras.bfloat16 ? "true" : "false",
      static_cast<unsigned long long>(cube_high_water[kMemL1]),
      static_cast<unsigned long long>(cube_high_water[kMemL0A]),
      static_cast<unsigned long long>(cube_high_water[kMemL0B]),
      static_cast<unsigned long long>(cube_high_water[kMemL0C]), total_json, max_json);
  std::fflush(stdout);
}

// The built-in ops' launch: no tiling key, no workspace; `body(in, out, tiling)`.
template <typename Body>
inline void Launch(const CannbotTiling& tiling, std::initializer_list<const float*> inputs,
                   std::initializer_list<float*> outputs, std::initializer_list<int64_t> elements,
                   Body&& body) {
  Launch(tiling, LaunchExtras{}, inputs, outputs, elements,
         [&](GM_ADDR* in, GM_ADDR* out, GM_ADDR, GM_ADDR t) { body(in, out, t); });
}

}  // namespace cannbot_ascendc

#endif  // CANNBOT_LAUNCH_H
