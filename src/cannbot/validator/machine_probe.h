// Machine probes: the microbenchmarks behind MachineModel (machine_model.h).
//
// Memory: the bandwidth one core sees for the access patterns kernels have, each over arrays
// far larger than any cache, counting the bytes the program asks for (as a kernel's roofline
// does): read-only (a sum), copy (one read and one write per element) and triad (two reads,
// one write), the writing patterns with plain stores and with non-temporal stores (which skip
// the read-for-ownership a plain store pays). Compute: the peak fp32 FMA rate of the widest
// vector unit present.
//
// The kernels are written with vector types and per-ISA clones, so they run at full width
// whatever the build's optimisation level (the test build is -Og) and are never instrumented
// by sanitizers.
//
// Thread-safety: each call allocates its own arrays; run one at a time on a quiet CPU (the
// caller pins the thread).
#pragma once

#include <string>

namespace cannbot::validator {

struct BandwidthFigures {
  double read_gbps = 0;          // read-only
  double copy_plain_gbps = 0;    // copy with plain stores (bytes read + written)
  double copy_streaming_gbps = 0;  // copy with non-temporal stores
  double triad_plain_gbps = 0;   // a[i] = b[i] + s*c[i], plain stores
  double triad_streaming_gbps = 0;  // the same with non-temporal stores
  bool allocated = false;        // false: no memory for the arrays, every figure is 0
};

// Best of several rounds of each pattern (GB/s = 1e9 bytes per second).
BandwidthFigures MeasureBandwidth();
// Peak single-core fp32 FMA GFLOP/s; `isa` says which unit ("avx512f", "avx2+fma", "scalar").
double MeasurePeakGflops(std::string* isa);

}  // namespace cannbot::validator
