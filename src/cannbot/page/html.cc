#include "cannbot/page/html.h"

#include <cstdio>

namespace cannbot::page {

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ScriptJson(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string Number(const nlohmann::json& value, const char* format) {
  if (!value.is_number()) return "-";
  char text[64];
  std::snprintf(text, sizeof(text), format, value.get<double>());
  return text;
}

std::string PageHead(const std::string& title) {
  return R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>)" + Escape(title) + R"(</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px 24px;color:#1d2330}
h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:24px 0 8px;border-bottom:1px solid #dde2ea}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eef1f5;vertical-align:top}
th{background:#f5f7fa}.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;background:#e8ecf3}
.succeeded,.accepted{background:#d9f2e1;color:#125a2c}.failed,.rejected{background:#fbe0e0;color:#7a1d1d}
.running,.queued{background:#fff2cc;color:#6b5300}.cancelled{background:#e8e8e8}
pre{background:#f7f8fa;padding:10px;overflow:auto;font:12px/1.4 ui-monospace,monospace}
.add{background:#e6f6ea}.del{background:#fbeaea}.hunk{color:#6b4fbb}
.kw{color:#a626a4}.str{color:#50a14f}.com{color:#8a8f98;font-style:italic}.lit{color:#b76b01}
.muted{color:#6b7280}svg text{font:11px system-ui,sans-serif}
form.filters{margin:8px 0}form.filters input,form.filters select{margin-right:8px}
</style></head><body>
)";
}

std::string PageFoot() { return "</body></html>\n"; }

}  // namespace cannbot::page
