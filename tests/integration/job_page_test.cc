// The job page in a real browser: the daemon serves a finished job and a running one, headless
// Chromium (Debian's `chromium`, installed by the test command) renders them, and the test
// reads the DOM the browser built: the roofline's points, the diff, the escaped kernel text,
// and a timeline row that arrived over the job's event stream while the page was open. A
// screenshot is left under the build directory for a person to look at.
#include <gtest/gtest.h>

#include <thread>

#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/headless_browser.h"

namespace cannbot {
namespace {

using testing::Chat;
using testing::Daemon;
using testing::FakeLlmServer;
using testing::Fenced;
using testing::HttpReply;
using testing::Json;

constexpr const char* kHostile = "// </script><script>alert('owned')</script><b>bold</b>\n";

// A finished offline job whose kernel carries markup in a comment. Swish: its naive kernel
// calls expf per element, so the recipe's kernel is several times faster and is accepted even
// beside a loaded suite (a memory-bound relu's margin was not: the page then had no accepted
// kernel to show).
std::string FinishedJob(Daemon& daemon) {
  Json body = testing::OfflineJob("swish");
  body["source"] = body["source"].get<std::string>() + kHostile;
  HttpReply r = daemon.PostJson("/optimize?wait=true", body);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["status"], "succeeded") << r.body;
  return r.json().value("job_id", "");
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// What API clients and browsers get without a browser: JSON by default, pages on request.
void ExpectPagesAndJson(Daemon& daemon, const std::string& id) {
  HttpReply page = daemon.Get("/jobs/" + id, {{"Accept", "text/html,application/xhtml+xml"}});
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.header("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(page.body.find("<svg class=\"roofline\""), std::string::npos);
  EXPECT_NE(page.body.find("data-kind=\"accepted\""), std::string::npos);
  EXPECT_NE(page.body.find("&lt;/script&gt;&lt;script&gt;alert"), std::string::npos);
  EXPECT_EQ(page.body.find("<script>alert"), std::string::npos);
  EXPECT_EQ(page.body.find("<b>bold</b>"), std::string::npos);
  EXPECT_EQ(daemon.Get("/jobs/" + id).json()["job_id"], id);  // JSON without the header
  HttpReply missing = daemon.Get("/jobs/j-none", {{"Accept", "text/html"}});
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("no job j-none"), std::string::npos);
  EXPECT_EQ(daemon.Get("/jobs/j-none").error_code(), "not_found");
  HttpReply index = daemon.Get("/?op=swish", {{"Accept", "text/html"}});
  EXPECT_NE(index.body.find("href=\"/jobs/" + id + "\""), std::string::npos);
  EXPECT_EQ(daemon.Get("/?op=add").body.find(id), std::string::npos);
}

TEST(JobPageTest, ChromiumRendersTheReportAndFollowsARunningJobLive) {
  FakeLlmServer llm;
  testing::ScriptedReply broken = Chat({Fenced("extern \"C\" void relu(const float* x, float* y, "
                                               "long n) { y[0] = missing; }", "A faster relu.")});
  broken.delay = std::chrono::milliseconds(3000);  // lands while the page is open
  llm.Push(broken);
  testing::ScriptedReply stalled = Chat({Fenced("int stalled(")});
  stalled.delay = std::chrono::milliseconds(25000);  // the repair round outlasts the daemon's
                                                     // 20 s LLM timeout
  llm.Push(stalled);
  Daemon daemon(Daemon::Options{
      {"--workers", "2"}, {},
      "[llm]\nurl = \"" + llm.base_url() +
          "\"\nmodel = \"scripted\"\nretries = 0\ntimeout_seconds = 20\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  const std::string done = FinishedJob(daemon);
  ExpectPagesAndJson(daemon, done);

  std::string error;
  auto browser = testing::HeadlessBrowser::Start(&error);
  ASSERT_NE(browser, nullptr) << error;
  const std::string finished = browser->Open(daemon.url() + "/jobs/" + done);
  ASSERT_FALSE(finished.empty());
  const std::string dom = browser->Dom(finished);
  EXPECT_EQ(Count(dom, "data-kind=\"baseline\""), 1) << dom.substr(0, 2000);
  EXPECT_EQ(Count(dom, "data-kind=\"accepted\""), 1);
  EXPECT_EQ(browser->Evaluate(finished, "document.querySelectorAll('svg.roofline circle').length"),
            Json(Count(dom, "<circle")));
  EXPECT_NE(dom.find("class=\"diff\""), std::string::npos);
  EXPECT_NE(dom.find("<span class=\"add\">"), std::string::npos);
  EXPECT_NE(dom.find("id=\"before-after\""), std::string::npos);
  // The kernel's markup stayed text: no element came of it, and its characters are on show.
  EXPECT_EQ(browser->Evaluate(finished, "[...document.querySelectorAll('b')].filter("
                                        "e => e.textContent === 'bold').length"),
            Json(0));
  EXPECT_EQ(browser->Evaluate(finished, "document.body.textContent.includes("
                                        "\"<script>alert('owned')</script><b>bold</b>\")"),
            Json(true));
  const std::string shot = std::string(CANNBOT_BUILD_DIR) + "/tests/job-page.png";
  EXPECT_TRUE(browser->Screenshot(finished, shot)) << shot;

  Json job = {{"op", "relu"},
              {"source", testing::KernelText("relu")},
              {"options", {{"samples", 1}, {"rounds", 1}, {"seed", 5}}}};
  HttpReply submitted = daemon.PostJson("/optimize", job);
  ASSERT_EQ(submitted.status, 202) << submitted.body;
  const std::string running = submitted.json()["job_id"];
  // The page opens while the job waits for the model; the rejected candidate's event arrives
  // over SSE and becomes a row the server never rendered.
  const std::string live = browser->Open(daemon.url() + "/jobs/" + running);
  ASSERT_FALSE(live.empty());
  EXPECT_EQ(browser->Evaluate(live, "document.querySelectorAll('tr.attempt').length"), Json(0));
  EXPECT_TRUE(browser->WaitFor(live, "document.querySelector('tr.attempt.live')",
                               std::chrono::seconds(60)))
      << browser->Dom(live).substr(0, 4000);
  EXPECT_EQ(browser->Evaluate(live, "document.querySelector('tr.attempt.live').children[4].textContent"),
            Json("compile"));
  EXPECT_EQ(browser->Evaluate(live, "document.getElementById('status').textContent"),
            Json("running"));
  EXPECT_EQ(daemon.Delete("/jobs/" + running).status, 202);
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot
