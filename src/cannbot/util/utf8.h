// Utf8: text from untrusted processes (a kernel's output, a compiler's log quoting a kernel's
// bytes) made valid UTF-8 before it reaches JSON, reports or the store, where an invalid byte
// would make the JSON writer throw and a verdict be lost.
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

}  // namespace cannbot
