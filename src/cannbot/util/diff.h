// Unified diffs of two texts, line by line, as `diff -u` prints them.
//
// Used by reports to show what a suggested kernel changed. The line alignment is a longest
// common subsequence, computed in O(n*m) memory for inputs up to a few thousand lines (kernel
// sources); larger inputs fall back to one whole-file hunk.
//
// Thread-safety: pure function.
#pragma once

#include <string>

namespace cannbot {

// "" when the texts are equal.
std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const std::string& before_name, const std::string& after_name,
                        int context_lines = 3);

}  // namespace cannbot
