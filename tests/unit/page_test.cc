// The HTML views (src/cannbot/page/): escaping of everything a kernel or a model supplies,
// JSON embedded in a page, the roofline's geometry and the coloured diff.
#include <gtest/gtest.h>

#include <regex>

#include "cannbot/page/code_view.h"
#include "cannbot/page/html.h"
#include "cannbot/page/job_page.h"
#include "cannbot/page/roofline_svg.h"

namespace cannbot::page {
namespace {

using Json = nlohmann::json;

TEST(PageHtmlTest, EscapesMarkupAndScriptJsonCannotCloseItsElement) {
  EXPECT_EQ(Escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  const std::string embedded = ScriptJson(Json{{"code", "</script><!-- & -->"}});
  EXPECT_EQ(embedded.find('<'), std::string::npos) << embedded;
  EXPECT_EQ(embedded.find('&'), std::string::npos) << embedded;
  EXPECT_EQ(Json::parse(embedded)["code"], "</script><!-- & -->");  // still the same value
}

// The y coordinate of the circle of `kind` in `svg`.
double CircleY(const std::string& svg, const std::string& kind) {
  std::smatch m;
  const std::regex circle("data-kind=\"" + kind + "\"[^>]*cy=\"([0-9.]+)\"");
  return std::regex_search(svg, m, circle) ? std::stod(m[1]) : -1;
}

TEST(PageRooflineTest, FasterKernelsSitHigherAndPointsWithoutWorkAreCounted) {
  Roofs roofs{100, 20, "test machine"};
  const std::string svg = RooflineSvg(
      roofs, {{"baseline", "baseline", 0.25, 1.0}, {"attempt 1", "accepted", 0.25, 4.5},
              {"attempt 2", "attempt", 0.25, 2.0}, {"copy", "attempt", 0, 0}});
  ASSERT_FALSE(svg.empty());
  const double base = CircleY(svg, "baseline");
  const double accepted = CircleY(svg, "accepted");
  ASSERT_GT(base, 0);
  ASSERT_GT(accepted, 0);
  EXPECT_LT(accepted, base);  // SVG y grows downwards: higher GFLOP/s, smaller y
  EXPECT_NE(svg.find("class=\"roof\""), std::string::npos);
  EXPECT_NE(svg.find("1 timed kernel(s) with no floating-point work"), std::string::npos);
  EXPECT_EQ(RooflineSvg(Roofs{}, {}), "");  // no machine figures, no plot
  const std::string hostile = RooflineSvg(roofs, {{"<script>x</script>", "attempt", 1, 1}});
  EXPECT_EQ(hostile.find("<script>"), std::string::npos);
}

TEST(PageCodeViewTest, DiffLinesAreClassedAndCodeIsColouredAndEscaped) {
  const std::string html = DiffHtml("@@ -1 +1 @@\n-int x = 1; // old\n+float y = \"</pre>\";\n");
  EXPECT_NE(html.find("<span class=\"hunk\">@@ -1 +1 @@</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"del\">-<span class=\"kw\">int</span>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<span class=\"com\">// old</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("<span class=\"str\">&quot;&lt;/pre&gt;&quot;</span>"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("</pre>\";"), std::string::npos);
}

TEST(PageJobTest, ARunningJobFollowsItsEventsAndAFinishedOneDoesNot) {
  Json running = {{"job_id", "j-1"}, {"status", "running"}, {"op", "relu"}, {"target", "cpu"},
                  {"events_url", "/jobs/j-1/events"}, {"attempts", Json::array()},
                  {"report", nullptr}};
  const std::string live = RenderJobPage(running);
  EXPECT_NE(live.find("new EventSource"), std::string::npos);
  EXPECT_NE(live.find("id=\"timeline\""), std::string::npos);
  running["status"] = "succeeded";
  EXPECT_EQ(RenderJobPage(running).find("EventSource"), std::string::npos);
  const std::string missing = RenderErrorPage("Not found", "no job <j-2>");
  EXPECT_NE(missing.find("no job &lt;j-2&gt;"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::page
