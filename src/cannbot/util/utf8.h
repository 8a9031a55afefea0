// Utf8: text from untrusted processes (a kernel's output, a compiler's log quoting a kernel's
// bytes) made valid UTF-8 before it reaches JSON, reports or the store, where an invalid byte
// would make the JSON writer throw and a verdict be lost; and made safe to show on a
// terminal, where escape sequences in a kernel's output could clear the screen and draw a
// verdict of their own.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace cannbot {

// `text` with every byte that does not begin or continue a well-formed UTF-8 sequence (stray
// continuation bytes, truncated sequences, overlong forms, surrogates, values past U+10FFFF)
// replaced by U+FFFD; everything else, control characters included, kept as it is.
std::string ValidUtf8(std::string_view text);

// ValidUtf8(text) with every control character but newline and tab (C0, DEL, the C1 range
// U+0080-U+009F, which some terminals also obey) written as a visible escape ("\x1b",
// "\u009b"), and, past `max_bytes`, cut at a character boundary with a note of how much more
// there was. What a person or an LLM is shown of an untrusted kernel goes through this.
std::string ShowableText(std::string_view text, size_t max_bytes = std::string_view::npos);

}  // namespace cannbot
