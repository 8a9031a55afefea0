// Html: the small pieces every page cannbot serves is built from: escaping text for HTML
// (everything a kernel, a model or a request supplied goes through it), JSON embedded in a
// page so that no string in it can close its <script> element, and one shared style sheet.
// Pages are self-contained: no external script, style or font, so they work with no network.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cannbot::page {

// & < > " ' as entities: safe in element text and in quoted attribute values.
std::string Escape(std::string_view text);

// `value` as JSON for <script type="application/json">: every <, > and & written as \u003c,
// \u003e and \u0026, so "</script>" or "<!--" inside a string cannot end the element.
std::string ScriptJson(const nlohmann::json& value);

// "1.38x", "12.3 ms", "-" for a missing number.
std::string Number(const nlohmann::json& value, const char* format);

// <!doctype html> ... <body>: the head with `title` (escaped) and the shared style sheet.
std::string PageHead(const std::string& title);
std::string PageFoot();

}  // namespace cannbot::page
