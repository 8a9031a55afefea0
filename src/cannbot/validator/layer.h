// Layer: which of the validator's layers decided a verdict. The verdict JSON (a *contract*,
// DESIGN.md) writes it as "compile", "sandbox", "numeric" or "perf", and null when accepted;
// inside cannbot it is this enum, never a string compared by hand.
//
// Thread-safety: pure functions.
#pragma once

#include <ostream>
#include <string_view>

#include "cannbot/util/status.h"

namespace cannbot::validator {

enum class Layer {
  kNone,     // nothing failed (accepted, or the layer was passed)
  kCompile,  // does not build against the contract
  kSandbox,  // crashed, hung, printed, broke a sandbox rule
  kNumeric,  // wrong numbers, writes out of bounds, changed inputs, nondeterminism
  kPerf,     // not measurably faster, or wrong on the timed runs
};

// "compile", "sandbox", "numeric", "perf"; "" for kNone.
const char* LayerName(Layer layer);
// Inverse of LayerName ("" is kNone). InvalidArgument naming `field` and the allowed values.
Result<Layer> ParseLayer(std::string_view name, std::string_view field = "layer");

inline std::ostream& operator<<(std::ostream& out, Layer layer) {
  return out << (layer == Layer::kNone ? "none" : LayerName(layer));
}

}  // namespace cannbot::validator
