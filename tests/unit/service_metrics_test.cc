// The daemon's metrics registry (service/metrics.h) renders the Prometheus text format.
#include "cannbot/service/metrics.h"

#include <gtest/gtest.h>
#include "unit_support.h"

namespace cannbot::service {
namespace {

using cannbot::test::Contains;

TEST(ServiceMetricsTest, CountersAndGaugesRenderWithHelpTypeAndLabels) {
  Metrics metrics;
  MetricFamily* attempts = metrics.Counter("cannbot_attempts_total", "Candidates judged.");
  MetricFamily* depth = metrics.Gauge("cannbot_queue_depth", "Jobs waiting.");
  attempts->Add({{"outcome", "rejected"}, {"layer", "numeric"}});
  attempts->Add({{"outcome", "rejected"}, {"layer", "numeric"}});
  attempts->Add({{"outcome", "accepted"}, {"layer", "accepted"}});
  depth->Set({}, 3);
  depth->Set({}, 2);
  const std::string text = metrics.Render();
  EXPECT_TRUE(Contains(text, "# HELP cannbot_attempts_total Candidates judged.\n"));
  EXPECT_TRUE(Contains(text, "# TYPE cannbot_attempts_total counter\n"));
  EXPECT_TRUE(Contains(text, "cannbot_attempts_total{outcome=\"rejected\",layer=\"numeric\"} 2\n"));
  EXPECT_TRUE(Contains(text, "cannbot_attempts_total{outcome=\"accepted\",layer=\"accepted\"} 1\n"));
  EXPECT_TRUE(Contains(text, "# TYPE cannbot_queue_depth gauge\ncannbot_queue_depth 2\n"));
  EXPECT_DOUBLE_EQ(attempts->Value({{"outcome", "rejected"}, {"layer", "numeric"}}), 2);
}

TEST(ServiceMetricsTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Metrics metrics;
  MetricFamily* h = metrics.Histogram("cannbot_validation_seconds", "Time.", {0.5, 1, 5});
  for (double v : {0.2, 0.7, 0.9, 3.0, 60.0}) h->Observe({}, v);
  const std::string text = metrics.Render();
  EXPECT_TRUE(Contains(text, "# TYPE cannbot_validation_seconds histogram\n"));
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_bucket{le=\"0.5\"} 1\n"));
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_bucket{le=\"1\"} 3\n"));
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_bucket{le=\"5\"} 4\n"));
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_bucket{le=\"+Inf\"} 5\n"));
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_sum 64.799999999999997\n") ||
              Contains(text, "cannbot_validation_seconds_sum 64.8\n"))
      << text;
  EXPECT_TRUE(Contains(text, "cannbot_validation_seconds_count 5\n"));
}

TEST(ServiceMetricsTest, HistogramLabelsComeBeforeLe) {
  Metrics metrics;
  MetricFamily* h = metrics.Histogram("cannbot_job_seconds", "Time.", {10});
  h->Observe({{"state", "succeeded"}}, 4);
  const std::string text = metrics.Render();
  EXPECT_TRUE(Contains(text, "cannbot_job_seconds_bucket{state=\"succeeded\",le=\"10\"} 1\n"));
  EXPECT_TRUE(Contains(text, "cannbot_job_seconds_count{state=\"succeeded\"} 1\n"));
}

TEST(ServiceMetricsTest, LabelValuesAreEscaped) {
  EXPECT_EQ(RenderLabels({{"a", "say \"hi\"\\\n"}}), "{a=\"say \\\"hi\\\"\\\\\\n\"}");
  EXPECT_EQ(RenderLabels({}), "");
}

}  // namespace
}  // namespace cannbot::service
