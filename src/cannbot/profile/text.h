// Text helpers shared by the profile importers: quote-aware CSV splitting, lenient number
// parsing (N/A, thousands separators, percent signs), UTF-8 repair and a binary sniff.
//
// Everything works on string_views into the caller's buffers and allocates nothing per field
// in the common case: the importers run these once per line of files with millions of lines.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cannbot::profile::text {

// Splits one CSV record on `separator`. Fields are views into `line`, or into `scratch` when
// a quoted field contained doubled quotes (scratch is reserved up front, so views stay valid
// until the next call). Surrounding quotes are removed; whitespace is kept (the caller trims).
// Returns false when a quoted field is still open at the end of `line`: the record continues
// on the next line and the caller should append it (with a '\n') and split again.
bool SplitCsv(std::string_view line, char separator, std::vector<std::string_view>* fields,
              std::string* scratch);

std::string_view Trim(std::string_view s);

struct Number {
  enum class Kind { kValue, kMissing, kBad };
  Kind kind = Kind::kMissing;
  double value = 0;
  bool percent = false;  // the text ended in '%'

  bool ok() const { return kind == Kind::kValue; }
};

// Parses a profiler's number: surrounding blanks and a trailing '%' are ignored; thousands
// separators are accepted when they group digits by three ("1,234,567.5"). Empty, "N/A",
// "n/a", "NA", "-", "--", "<not counted>", "<not supported>" are kMissing; anything else that
// is not a finite number is kBad.
Number ParseNumber(std::string_view s);

// Whether `s` is valid UTF-8 without control characters other than tab.
bool IsCleanUtf8(std::string_view s);
// `s` with each invalid UTF-8 sequence or control character replaced by U+FFFD.
std::string RepairUtf8(std::string_view s);

// "" when `head` (the first bytes of a file) looks like text, else why not
// ("a NUL byte at offset 12").
std::string BinaryReason(std::string_view head);

// Case-insensitive substring test (ASCII).
bool ContainsNoCase(std::string_view haystack, std::string_view needle);

}  // namespace cannbot::profile::text
