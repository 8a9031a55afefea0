// MachineModel: this machine's single-core roofline, measured once and cached in the Store.
//
// Two numbers bound how fast any kernel can run on one core: the streaming memory bandwidth
// (a STREAM-style triad, counting the bytes the program asks for) and the peak fp32 FMA
// throughput of the widest vector unit present. A kernel's roofline time is
// max(flops / peak, bytes / bandwidth); its roofline fraction is that bound over its measured
// time. Hardware counters are not needed (they are often missing in virtual machines).
//
// Thread-safety: measuring pins the measuring thread to one CPU for about a second; the
// model itself is a plain value.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/store/store.h"
#include "cannbot/util/status.h"

namespace cannbot::validator {

struct MachineModel {
  std::string machine_id;  // hash of host, CPU model and core count
  std::string cpu_name;
  int logical_cpus = 1;
  std::string vector_isa;    // "avx512f", "avx2+fma" or "scalar": what the peak was measured with
  double stream_gbps = 0;    // single-core triad bandwidth (best of plain and non-temporal
                             // stores), GB/s (1e9 bytes)
  double peak_gflops = 0;    // single-core fp32 FMA peak, GFLOP/s

  // Lower bound on the time of one call that does `flops` and moves `bytes`.
  double BoundSeconds(double flops, double bytes) const;
  nlohmann::json ToJson() const;
  static Result<MachineModel> FromJson(const nlohmann::json& json);
};

// The id of the machine this process runs on.
std::string CurrentMachineId();
// Measures on `cpu` (-1: the last online CPU).
MachineModel MeasureMachineModel(int cpu);
// The cached model for this machine, measuring and storing it on first use. `store` may be
// null (then it always measures).
MachineModel LoadOrMeasureMachineModel(store::Store* store, int cpu);

}  // namespace cannbot::validator
