// The CI bot's comment (ci/comment.h): marker first, summary line, one section per kernel
// with verdict, diagnosis, before/after table and collapsible diff; a broken kernel said
// loudly; nothing from the repository can inject markup, close a fence or forge the marker;
// the size limit shortens diffs first.
#include <gtest/gtest.h>

#include <string>

#include "cannbot/ci/comment.h"
#include "unit_support.h"

namespace cannbot::ci {
namespace {

using cannbot::test::Contains;

KernelSection Faster(const std::string& path) {
  KernelSection k;
  k.path = path;
  k.op = "add";
  k.status = KernelStatus::kFaster;
  k.profile_source = "msprof op_summary CSV (profiles/add.csv)";
  k.findings = {
      {"memory-bandwidth bound",
       "critical",
       "The kernel streams at full bandwidth.",
       {"dram_gbps = 21.3 GB/s (>= 18.0 GB/s; domain brief)", "second", "third", "fourth"}},
      {"low vectorization", "warning", "Scalar loop.", {}},
      {"b", "info", "c", {}},
      {"fourth finding", "info", "never shown", {}}};
  k.has_timing = true;
  k.shape = "n=4194304";
  k.before = {7.025, 7.16, 0.766};
  k.after = {5.062, 9.94, 0.95};
  k.speedup = 1.41;
  k.ci_low = 1.13;
  k.ci_high = 1.76;
  k.min_speedup = 1.05;
  k.origin = "recipe add-stream (UNROLL=2)";
  k.diff = "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n";
  return k;
}

KernelSection Broken() {
  KernelSection k;
  k.path = "ops/relu.cpp";
  k.op = "relu";
  k.status = KernelStatus::kBroken;
  k.broken_layer = validator::Layer::kNumeric;
  k.broken_reason = "wrong results on case 'odd' (n=1037)";
  k.broken_cases = {"odd (n=1037): 312 of 1037 elements differ", "large (n=65536): 9 differ"};
  return k;
}

CommentInput Input(std::vector<KernelSection> kernels) {
  CommentInput in;
  in.base = "e28ae520f8b1";
  in.head = "6a668abff020";
  in.provider = "offline recipes";
  in.kernels = std::move(kernels);
  return in;
}

TEST(CiCommentTest, MarkerSummaryAndEverySectionPart) {
  const std::string body = RenderComment(Input({Broken(), Faster("ops/add.cpp")}));
  EXPECT_EQ(body.rfind(kCommentMarker, 0), 0u);
  EXPECT_TRUE(IsBotComment(body));
  EXPECT_TRUE(Contains(body,
                       "**cannbot** · 2 changed kernels: 1 broken by this change, 1 with a "
                       "validated faster version"));
  // The broken kernel: headline, layer, the failing cases.
  EXPECT_TRUE(Contains(
      body, "### `ops/relu.cpp` · op `relu` · **this change breaks numeric equivalence**"));
  EXPECT_TRUE(Contains(body, "rejected at the numeric layer"));
  EXPECT_TRUE(Contains(body, "| odd (n=1037) | 312 of 1037 elements differ |"));
  // The faster kernel: verdict with CI, diagnosis with evidence, the table, the diff.
  EXPECT_TRUE(Contains(body, "1.41x faster (95% CI 1.13x-1.76x"));
  EXPECT_TRUE(Contains(body, "- **memory-bandwidth bound** (critical): The kernel streams"));
  EXPECT_TRUE(Contains(body, "`dram_gbps = 21.3 GB/s (&gt;= 18.0 GB/s; domain brief)`") ||
              Contains(body, "`dram_gbps = 21.3 GB/s (>= 18.0 GB/s; domain brief)`"));
  EXPECT_FALSE(Contains(body, "fourth"));  // three findings, three evidence lines at most
  EXPECT_TRUE(Contains(body, "| before (this change) | 7.025 ms | 1.00x | 7.16 | 76.6% |"));
  EXPECT_TRUE(
      Contains(body, "| after (suggested) | 5.062 ms | **1.41x** (1.13x-1.76x) | 9.94 | 95.0% |"));
  EXPECT_TRUE(
      Contains(body, "<details><summary>Suggested kernel (diff against this change)</summary>"));
  EXPECT_TRUE(Contains(body, "```diff\n--- a\n+++ b\n"));
  EXPECT_TRUE(Contains(body, "`e28ae520f8b1`...`6a668abff020`"));
  // Broken kernels come first in the summary, and sections keep the run's order.
  EXPECT_LT(body.find("ops/relu.cpp"), body.find("ops/add.cpp"));
}

TEST(CiCommentTest, NoFasterKernelAndErrorsAreExplained) {
  KernelSection flat = Faster("ops/a.cpp");
  flat.status = KernelStatus::kNoFasterKernel;
  flat.attempts = 4;
  flat.closest = "recipe x: 1.02x, below the bar";
  KernelSection error;
  error.path = "ops/b.cpp";
  error.op = "add";
  error.status = KernelStatus::kError;
  error.error = "the LLM server could not be reached";
  const std::string body = RenderComment(Input({flat, error}));
  EXPECT_TRUE(Contains(body, "4 candidates were tried and none cleared all three layers"));
  EXPECT_TRUE(Contains(body, "Closest: recipe x: 1.02x"));
  EXPECT_TRUE(Contains(body, "| closest candidate (rejected) |"));
  EXPECT_FALSE(Contains(body, "<details>"));
  EXPECT_TRUE(Contains(body, "**Could not be checked:** the LLM server could not be reached"));
  EXPECT_EQ(SummaryText(Input({})), "no changed kernel in this change");
}

TEST(CiCommentTest, RepositoryTextCannotInjectMarkupOrEscapeTheFence) {
  KernelSection k = Faster("ops/<!-- cannbot-ci -->`x`.cpp");
  k.diff = "+ ```\n+ </details>\n+ <!-- cannbot-ci -->\n";
  k.notes = {"<script>alert(1)</script>", "![pixel](https://tracker.test/p.png)"};
  k.explanation = std::string(599, 'x') + "\xc3\xa9 and more";  // cut inside a UTF-8 pair
  KernelSection b = Broken();
  b.broken_cases = {"a|b: x|y", "second: z"};
  const std::string body = RenderComment(Input({k, b}));
  // Only the first line carries the marker outside a code span or block.
  EXPECT_EQ(body.find(kCommentMarker), 0u);
  EXPECT_TRUE(Contains(body, "``ops/<!-- cannbot-ci -->`x`.cpp``"));
  EXPECT_TRUE(Contains(body, "````diff\n"));  // a fence longer than the diff's own backticks
  EXPECT_TRUE(Contains(body, "&lt;script&gt;"));
  EXPECT_FALSE(Contains(body, "<script>"));
  EXPECT_TRUE(Contains(body, "!\\[pixel\\](https://tracker.test/p.png)"));
  EXPECT_FALSE(Contains(body, "![pixel]"));
  EXPECT_TRUE(Contains(body, std::string(599, 'x') + "..."));
  EXPECT_TRUE(Contains(body, "| a\\|b | x\\|y |"));
}

TEST(CiCommentTest, LongDiffsAreShortenedToFitTheLimit) {
  std::string diff;
  for (int i = 0; i < 4000; ++i) diff += "+ line " + std::to_string(i) + " of a very long kernel\n";
  KernelSection a = Faster("ops/a.cpp"), b = Faster("ops/b.cpp");
  a.diff = b.diff = diff;
  RenderOptions options;
  options.max_chars = 20000;
  const std::string body = RenderComment(Input({a, b}), options);
  EXPECT_LE(body.size(), options.max_chars);
  EXPECT_TRUE(Contains(body, "more lines of the diff left out to fit the comment"));
  EXPECT_TRUE(Contains(body, "### `ops/b.cpp`"));  // both sections survive
  EXPECT_TRUE(Contains(body, "this comment is updated on every push"));
}

TEST(CiCommentTest, OnlyACommentBeginningWithTheMarkerIsTheBots) {
  EXPECT_TRUE(IsBotComment(std::string("\n") + kCommentMarker + "\nhello"));
  EXPECT_FALSE(IsBotComment(std::string("quoting: ") + kCommentMarker));
  EXPECT_FALSE(IsBotComment(""));
}

}  // namespace
}  // namespace cannbot::ci
