#include "cannbot/service/metrics.h"

#include <cmath>
#include <cstdio>

namespace cannbot::service {
namespace {

const char* KindName(MetricFamily::Kind kind) {
  switch (kind) {
    case MetricFamily::Kind::kCounter: return "counter";
    case MetricFamily::Kind::kGauge: return "gauge";
    case MetricFamily::Kind::kHistogram: return "histogram";
  }
  return "untyped";
}

std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// Adds le="..." to a rendered label set ("" or "{a=\"x\"}").
std::string WithBucket(const std::string& labels, const std::string& le) {
  const std::string bucket = "le=\"" + le + "\"";
  if (labels.empty()) return "{" + bucket + "}";
  return labels.substr(0, labels.size() - 1) + "," + bucket + "}";
}

}  // namespace

std::string RenderLabels(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    out += (i ? "," : "") + labels[i].first + "=\"" + Escape(labels[i].second) + "\"";
  }
  return out + "}";
}

MetricFamily::MetricFamily(std::string name, std::string help, Kind kind,
                           std::vector<double> buckets)
    : name_(std::move(name)), help_(std::move(help)), kind_(kind), buckets_(std::move(buckets)) {}

MetricFamily::Series& MetricFamily::SeriesFor(const Labels& labels) {
  Series& s = series_[RenderLabels(labels)];
  if (kind_ == Kind::kHistogram && s.bucket_counts.empty()) s.bucket_counts.resize(buckets_.size());
  return s;
}

void MetricFamily::Add(const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  SeriesFor(labels).value += value;
}

void MetricFamily::Set(const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  SeriesFor(labels).value = value;
}

void MetricFamily::Observe(const Labels& labels, double value) {
  std::lock_guard<std::mutex> lock(mutex_);
  Series& s = SeriesFor(labels);
  s.value += value;
  ++s.count;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (value <= buckets_[i]) {
      ++s.bucket_counts[i];
      break;
    }
  }
}

double MetricFamily::Value(const Labels& labels) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = series_.find(RenderLabels(labels));
  return it == series_.end() ? 0 : it->second.value;
}

std::string MetricFamily::Render() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = "# HELP " + name_ + " " + help_ + "\n# TYPE " + name_ + " " +
                    KindName(kind_) + "\n";
  for (const auto& [labels, s] : series_) {
    if (kind_ != Kind::kHistogram) {
      out += name_ + labels + " " + Number(s.value) + "\n";
      continue;
    }
    uint64_t cumulative = 0;
    for (size_t i = 0; i < buckets_.size(); ++i) {
      cumulative += s.bucket_counts[i];
      out += name_ + "_bucket" + WithBucket(labels, Number(buckets_[i])) + " " +
             std::to_string(cumulative) + "\n";
    }
    out += name_ + "_bucket" + WithBucket(labels, "+Inf") + " " + std::to_string(s.count) + "\n";
    out += name_ + "_sum" + labels + " " + Number(s.value) + "\n";
    out += name_ + "_count" + labels + " " + std::to_string(s.count) + "\n";
  }
  return out;
}

MetricFamily* Metrics::Declare(std::unique_ptr<MetricFamily> family) {
  std::lock_guard<std::mutex> lock(mutex_);
  families_.push_back(std::move(family));
  return families_.back().get();
}

MetricFamily* Metrics::Counter(const std::string& name, const std::string& help) {
  return Declare(std::make_unique<MetricFamily>(name, help, MetricFamily::Kind::kCounter,
                                                std::vector<double>{}));
}

MetricFamily* Metrics::Gauge(const std::string& name, const std::string& help) {
  return Declare(std::make_unique<MetricFamily>(name, help, MetricFamily::Kind::kGauge,
                                                std::vector<double>{}));
}

MetricFamily* Metrics::Histogram(const std::string& name, const std::string& help,
                                 std::vector<double> buckets) {
  return Declare(std::make_unique<MetricFamily>(name, help, MetricFamily::Kind::kHistogram,
                                                std::move(buckets)));
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const auto& family : families_) out += family->Render();
  return out;
}

}  // namespace cannbot::service
