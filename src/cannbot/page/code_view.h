// CodeView: kernel source and unified diffs as HTML with syntax colouring (keywords, strings,
// comments, numbers; added, removed and hunk lines), every character escaped. Line by line:
// a block comment is coloured on the lines where it opens and closes, which is enough to read
// a kernel and never unsafe.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace cannbot::page {

// One line of C++ as coloured, escaped HTML.
std::string HighlightCpp(std::string_view line);
// A unified diff as <pre class="diff">: one <span> per line, classed add / del / hunk.
std::string DiffHtml(const std::string& diff);

}  // namespace cannbot::page
