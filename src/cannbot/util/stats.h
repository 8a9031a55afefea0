// Small statistics for noisy timings: medians and distribution-free confidence intervals.
//
// Timings on shared 2-core machines are skewed and heavy-tailed, so cannbot summarises them
// by medians, with an order-statistic (binomial) interval that assumes nothing about the
// distribution beyond independent samples.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

namespace cannbot {

struct Interval {
  double low = 0;
  double high = 0;
};

double Median(std::vector<double> samples);
// Confidence interval for the median at `confidence` (e.g. 0.95). With too few samples for
// that coverage it returns [min, max].
Interval MedianConfidenceInterval(std::vector<double> samples, double confidence = 0.95);

}  // namespace cannbot
