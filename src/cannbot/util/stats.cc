#include "cannbot/util/stats.h"

#include <algorithm>
#include <cmath>

namespace cannbot {

double Median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

Interval MedianConfidenceInterval(std::vector<double> samples, double confidence) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const int n = static_cast<int>(samples.size());
  // The median lies in [x(j), x(n-j+1)] (1-based) with probability 1 - 2 P(B < j), where
  // B ~ Binomial(n, 1/2). Take the largest j whose tail P(B < j) stays within alpha / 2.
  const double alpha_half = (1.0 - confidence) / 2.0;
  double tail = 0;  // P(B <= i)
  double term = std::pow(0.5, n);  // P(B = 0)
  int j = 0;
  for (int i = 0; i < n; ++i) {
    tail += term;
    if (tail > alpha_half) break;
    j = i + 1;  // P(B < j) = P(B <= i) <= alpha/2
    term *= static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  if (j < 1) return {samples.front(), samples.back()};
  return {samples[static_cast<size_t>(j - 1)], samples[static_cast<size_t>(n - j)]};
}

}  // namespace cannbot
