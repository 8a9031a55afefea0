#include "cannbot/profile/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace cannbot::profile::text {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Drops the commas of "1,234,567.5"; false when the commas do not group digits by three
// (then the text is not a number with thousands separators).
bool StripThousands(std::string_view s, char* out, size_t* out_len, size_t cap) {
  size_t len = 0;
  size_t digits_since_comma = 0;
  bool seen_comma = false;
  bool in_fraction = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ',') {
      if (in_fraction || digits_since_comma == 0 || (seen_comma && digits_since_comma != 3)) {
        return false;
      }
      if (!seen_comma && digits_since_comma > 3) return false;
      seen_comma = true;
      digits_since_comma = 0;
      continue;
    }
    if (c >= '0' && c <= '9') {
      ++digits_since_comma;
    } else if (c == '.' || c == 'e' || c == 'E') {
      if (seen_comma && !in_fraction && digits_since_comma != 3) return false;
      in_fraction = true;
    }
    if (len + 1 >= cap) return false;
    out[len++] = c;
  }
  if (seen_comma && !in_fraction && digits_since_comma != 3) return false;
  *out_len = len;
  return true;
}

bool IsMissingWord(std::string_view s) {
  static constexpr std::string_view kWords[] = {"N/A", "n/a", "NA", "na", "-", "--", "None",
                                                "null", "<not counted>", "<not supported>"};
  return std::find(std::begin(kWords), std::end(kWords), s) != std::end(kWords);
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t min = 0;
  uint32_t cp = 0;
  if ((c & 0xE0) == 0xC0) {
    n = 2, min = 0x80, cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, min = 0x800, cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, min = 0x10000, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool IsControl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

}  // namespace

bool SplitCsv(std::string_view line, char separator, std::vector<std::string_view>* fields,
              std::string* scratch) {
  fields->clear();
  scratch->clear();
  scratch->reserve(line.size());
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    // Leading blanks before an opening quote do not count ("a, \"b,c\"").
    size_t start = i;
    while (start < n && (line[start] == ' ' || line[start] == '\t')) ++start;
    if (start < n && line[start] == '"') {
      size_t j = start + 1;
      size_t copy_from = std::string::npos;  // offset in scratch when unescaping
      while (true) {
        const char* quote = static_cast<const char*>(
            j < n ? std::memchr(line.data() + j, '"', n - j) : nullptr);
        if (quote == nullptr) return false;  // the quoted field goes on past this line
        size_t q = static_cast<size_t>(quote - line.data());
        if (q + 1 < n && line[q + 1] == '"') {  // "" is an escaped quote
          if (copy_from == std::string::npos) copy_from = scratch->size();
          scratch->append(line.substr(j, q + 1 - j));
          j = q + 2;
          continue;
        }
        if (copy_from == std::string::npos) {
          fields->push_back(line.substr(start + 1, q - start - 1));
        } else {
          scratch->append(line.substr(j, q - j));
          fields->push_back(std::string_view(*scratch).substr(copy_from));
        }
        i = q + 1;
        break;
      }
      // Anything between the closing quote and the separator (the msprof tab) is dropped.
      const char* sep = static_cast<const char*>(
          i < n ? std::memchr(line.data() + i, separator, n - i) : nullptr);
      if (sep == nullptr) return true;
      i = static_cast<size_t>(sep - line.data()) + 1;
      continue;
    }
    // Unquoted fields are short: a plain loop beats a memchr call per field.
    size_t end = i;
    while (end < n && line[end] != separator) ++end;
    fields->push_back(line.substr(i, end - i));
    if (end == n) return true;
    i = end + 1;
  }
}

std::string_view Trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && IsBlank(s[b])) ++b;
  while (e > b && IsBlank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

Number ParseNumber(std::string_view s) {
  Number number;
  s = Trim(s);
  if (!s.empty() && s.back() == '%') {
    number.percent = true;
    s = Trim(s.substr(0, s.size() - 1));
  }
  if (s.empty() || IsMissingWord(s)) return number;
  if (s.front() == '+') s.remove_prefix(1);
  char buffer[64];
  const char* begin = s.data();
  size_t len = s.size();
  if (s.find(',') != std::string_view::npos) {
    if (!StripThousands(s, buffer, &len, sizeof(buffer))) {
      number.kind = Number::Kind::kBad;
      return number;
    }
    begin = buffer;
  }
  double value = 0;
  auto [end, error] = std::from_chars(begin, begin + len, value);
  if (error != std::errc() || end != begin + len || !std::isfinite(value)) {
    number.kind = Number::Kind::kBad;
    return number;
  }
  number.kind = Number::Kind::kValue;
  number.value = value;
  return number;
}

bool IsCleanUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (IsControl(c)) return false;
      ++i;
      continue;
    }
    const size_t n = Utf8Length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string RepairUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? (IsControl(c) ? 0 : 1) : Utf8Length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string BinaryReason(std::string_view head) {
  size_t bad = 0;
  for (size_t i = 0; i < head.size();) {
    const unsigned char c = static_cast<unsigned char>(head[i]);
    if (c == 0) return "a NUL byte at offset " + std::to_string(i);
    if (c < 0x80) {
      if (IsControl(c) && c != '\n' && c != '\r' && c != '\f') ++bad;
      ++i;
      continue;
    }
    const size_t n = Utf8Length(head, i);
    // A sequence cut off by the end of the head is not evidence of anything.
    if (n == 0 && i + 4 < head.size()) ++bad;
    i += n == 0 ? 1 : n;
  }
  if (head.size() >= 64 && bad * 10 > head.size()) {
    return std::to_string(bad) + " of its first " + std::to_string(head.size()) +
           " bytes are neither text nor UTF-8";
  }
  return "";
}

bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [&](char a, char b) { return lower(a) == lower(b); });
  return it != haystack.end();
}

}  // namespace cannbot::profile::text
