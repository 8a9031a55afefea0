// Metrics: a small registry rendered in the Prometheus text exposition format (version
// 0.0.4): counters, gauges and histograms, each a family of series told apart by labels.
// (prometheus-cpp is not packaged for Debian 12; this is the part of it the daemon needs.)
//
// Families are declared once and then updated through the pointer Declare* returns; series
// appear on first use. The daemon owns one Metrics; nothing here is global.
//
// Ownership: a Metrics owns its families; the pointers stay valid for its lifetime.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cannbot::service {

using Labels = std::vector<std::pair<std::string, std::string>>;

class MetricFamily {
 public:
  enum class Kind { kCounter, kGauge, kHistogram };
  MetricFamily(std::string name, std::string help, Kind kind, std::vector<double> buckets);

  void Add(const Labels& labels, double value = 1);  // counters (and gauges)
  void Set(const Labels& labels, double value);      // gauges
  void Observe(const Labels& labels, double value);  // histograms
  // The family's lines: # HELP, # TYPE, then one line per series (and bucket).
  std::string Render() const;
  // A counter's or gauge's current value (0 when the series does not exist); for tests.
  double Value(const Labels& labels) const;

 private:
  struct Series {
    double value = 0;                   // counter/gauge value, or histogram sum
    std::vector<uint64_t> bucket_counts;  // histogram: per bucket, not cumulative
    uint64_t count = 0;                 // histogram observations
  };
  Series& SeriesFor(const Labels& labels);

  std::string name_;
  std::string help_;
  Kind kind_;
  std::vector<double> buckets_;  // upper bounds, ascending; +Inf is implied
  mutable std::mutex mutex_;
  std::map<std::string, Series> series_;  // by rendered label set
};

class Metrics {
 public:
  MetricFamily* Counter(const std::string& name, const std::string& help);
  MetricFamily* Gauge(const std::string& name, const std::string& help);
  MetricFamily* Histogram(const std::string& name, const std::string& help,
                          std::vector<double> buckets);
  // Every family, in declaration order.
  std::string Render() const;

 private:
  MetricFamily* Declare(std::unique_ptr<MetricFamily> family);
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<MetricFamily>> families_;
};

// {a="x",b="y"} with values escaped as the format requires; "" for no labels.
std::string RenderLabels(const Labels& labels);

}  // namespace cannbot::service
