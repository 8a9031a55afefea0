// RooflineSvg: a roofline plot as an SVG element, drawn by the server so the page needs no
// script to show it. Log-log axes: arithmetic intensity (FLOP per byte moved) against
// achieved GFLOP/s; the machine's memory roof (bandwidth x intensity) and compute roof (peak
// GFLOP/s) meet at the ridge point. Each kernel is a point: the baseline, the accepted
// kernel, every other attempt that was timed. Points carry data-kind and data-label
// attributes so that tests (and people with a DOM inspector) can find them.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <vector>

namespace cannbot::page {

struct Roofs {
  double peak_gflops = 0;  // single-core fp32 FMA peak
  double gbps = 0;         // streaming bandwidth
  std::string label;       // "AMD EPYC, Zen 3: 96.8 GFLOP/s, 21.8 GB/s"
};

struct RooflinePoint {
  std::string label;        // "baseline", "attempt 3 (recipe ...)"
  std::string kind;         // "baseline", "accepted", "attempt"
  double intensity = 0;     // FLOP per byte
  double gflops = 0;
};

// Points with a non-positive coordinate cannot sit on log axes and are left out (a note under
// the plot says how many). Empty string when the roofs are unknown.
std::string RooflineSvg(const Roofs& roofs, const std::vector<RooflinePoint>& points);

}  // namespace cannbot::page
