// cannbot_ascendc_counters.h: the work one emulated block did, as the cost model reads it.
//
// The API headers add to the running block's Counters through cannbot_ascendc::Count and
// CountVector (cannbot_ascendc_runtime.h), which also send each addition down the count
// channel; the launcher sums them over the launch and keeps their per-block maximum, and
// prints both in its stats line (docs/kernel-abi.md). Thread-safety: plain values.
#ifndef CANNBOT_ASCENDC_COUNTERS_H
#define CANNBOT_ASCENDC_COUNTERS_H

#include <cstdint>

namespace cannbot_ascendc {

// The counters by number (the count channel's kCounter records name them so).
enum CounterField : uint8_t {
  kGmToUbBytes, kUbToGmBytes, kUbToUbBytes, kGmToUbCopies, kUbToGmCopies, kVectorInstructions,
  kVectorRepeats, kVectorBytes, kVectorComplexRepeats, kScalarOps, kCubeFractals,
  kCubeMoveBytes, kGmRawPointers, kUbRawPointers, kRegInstructions, kCounterFields
};

// What the cost model needs from one block (or, summed, from a launch). Bytes are the bytes
// that actually crossed the link; repeats are 256-byte vector repeats.
struct Counters {
  uint64_t gm_to_ub_bytes = 0;
  uint64_t ub_to_gm_bytes = 0;
  uint64_t ub_to_ub_bytes = 0;
  uint64_t gm_to_ub_copies = 0;
  uint64_t ub_to_gm_copies = 0;
  uint64_t vector_instructions = 0;
  uint64_t vector_repeats = 0;
  uint64_t vector_bytes = 0;
  uint64_t vector_complex_repeats = 0;  // repeats of Exp, Ln, Sqrt, Div, Reciprocal
  uint64_t scalar_ops = 0;              // LocalTensor element reads and writes
  uint64_t cube_fractals = 0;   // Mmad: 16 x 16 x (32 bytes of K) multiply-add blocks
  uint64_t cube_move_bytes = 0;  // on chip: LoadData (L1 -> L0A/L0B), L0C -> CO2 copies
  uint64_t gm_raw_pointers = 0;  // GlobalTensor::GetPhyAddr: GM the counters cannot follow
  uint64_t ub_raw_pointers = 0;  // LocalTensor::GetPhyAddr on the UB (register functions take them)
  uint64_t reg_instructions = 0;  // register-function instructions (also counted as vector)

  uint64_t& Field(CounterField f) {
    uint64_t* const fields[kCounterFields] = {
        &gm_to_ub_bytes, &ub_to_gm_bytes, &ub_to_ub_bytes, &gm_to_ub_copies, &ub_to_gm_copies,
        &vector_instructions, &vector_repeats, &vector_bytes, &vector_complex_repeats,
        &scalar_ops, &cube_fractals, &cube_move_bytes, &gm_raw_pointers, &ub_raw_pointers,
        &reg_instructions};
    return *fields[f];
  }

  void Add(const Counters& o) {
    gm_to_ub_bytes += o.gm_to_ub_bytes;
    ub_to_gm_bytes += o.ub_to_gm_bytes;
    ub_to_ub_bytes += o.ub_to_ub_bytes;
    gm_to_ub_copies += o.gm_to_ub_copies;
    ub_to_gm_copies += o.ub_to_gm_copies;
    vector_instructions += o.vector_instructions;
    vector_repeats += o.vector_repeats;
    vector_bytes += o.vector_bytes;
    vector_complex_repeats += o.vector_complex_repeats;
    scalar_ops += o.scalar_ops;
    cube_fractals += o.cube_fractals;
    cube_move_bytes += o.cube_move_bytes;
    gm_raw_pointers += o.gm_raw_pointers;
    ub_raw_pointers += o.ub_raw_pointers;
    reg_instructions += o.reg_instructions;
  }
  // Per-counter maximum: the slowest block bounds each wave.
  void Max(const Counters& o) {
    auto m = [](uint64_t& a, uint64_t b) { a = a > b ? a : b; };
    m(gm_to_ub_bytes, o.gm_to_ub_bytes);
    m(ub_to_gm_bytes, o.ub_to_gm_bytes);
    m(ub_to_ub_bytes, o.ub_to_ub_bytes);
    m(gm_to_ub_copies, o.gm_to_ub_copies);
    m(ub_to_gm_copies, o.ub_to_gm_copies);
    m(vector_instructions, o.vector_instructions);
    m(vector_repeats, o.vector_repeats);
    m(vector_bytes, o.vector_bytes);
    m(vector_complex_repeats, o.vector_complex_repeats);
    m(scalar_ops, o.scalar_ops);
    m(cube_fractals, o.cube_fractals);
    m(cube_move_bytes, o.cube_move_bytes);
    m(gm_raw_pointers, o.gm_raw_pointers);
    m(ub_raw_pointers, o.ub_raw_pointers);
    m(reg_instructions, o.reg_instructions);
  }
};

}  // namespace cannbot_ascendc

#endif  // CANNBOT_ASCENDC_COUNTERS_H
