// MachineModel: this machine's single-core roofline, measured once and cached in the Store.
//
// What bounds how fast a kernel can run on one core: the memory bandwidth of its access
// pattern and the peak fp32 FMA throughput of the widest vector unit present. Bandwidth is
// measured for three patterns (machine_probe.h): read-only, copy and triad, the writing ones
// with plain and with non-temporal stores (the best counts: a tuned kernel streams). An op's
// memory bound follows its own mix of reads and writes (a copy-like relu and a triad-like add
// see different bandwidths): the cost of a byte is interpolated between the measured patterns
// by the op's written share, so an op with a measured pattern's mix gets exactly that
// pattern's bandwidth. A kernel's roofline time is max(flops / peak, its traffic's memory time); its
// roofline fraction is that bound over its measured time. Hardware counters are not needed.
//
// The model also says what the CPU is (cpu_info.h): model, microarchitecture and features,
// and `cpu_key`, the machine-model key tuned winners are stored under.
//
// Thread-safety: measuring pins a thread of its own to one CPU for about a second; the
// model itself is a plain value.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/ops/op_spec.h"
#include "cannbot/store/store.h"
#include "cannbot/util/status.h"

namespace cannbot::validator {

struct MachineModel {
  std::string machine_id;  // hash of host, CPU model and core count: this host
  std::string cpu_key;     // CpuInfo::Key(): the machine model (same CPU, features, count)
  std::string cpu_name;
  std::string microarchitecture;  // "Zen 3 (family 25 model 1)"
  std::string features;           // "avx2 fma f16c ..." (cpu_info.h's list)
  int logical_cpus = 1;
  std::string vector_isa;    // "avx512f", "avx2+fma" or "scalar": what the peak was measured with
  double stream_gbps = 0;    // triad (two reads, one write), best of plain and non-temporal
  double read_gbps = 0;      // read-only
  double copy_gbps = 0;      // copy (one read, one write), best of plain and non-temporal
  double peak_gflops = 0;    // single-core fp32 FMA peak, GFLOP/s

  // Lower bound on the memory time of `traffic` (0 without bandwidth figures).
  double MemorySeconds(const ops::Traffic& traffic) const;
  // The bandwidth the roofline allows `traffic`'s mix of reads and writes, GB/s.
  double PatternGbps(const ops::Traffic& traffic) const;
  // Lower bound on the time of one call that does `flops` and moves `traffic`.
  double BoundSeconds(double flops, const ops::Traffic& traffic) const;
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
// Measures again and keeps, figure by figure, the better of `model` and the new measurement,
// storing the result: a model measured in a busy moment is low, and a kernel measured above
// its roofline proves it.
MachineModel RemeasureKeepingBest(store::Store* store, int cpu, const MachineModel& model);

}  // namespace cannbot::validator
