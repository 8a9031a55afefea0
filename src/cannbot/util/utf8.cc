#include "cannbot/util/utf8.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace cannbot {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed sequence at `i`, or 0.
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range (RFC 3629, table 3-7)
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t length = SequenceLength(text, i);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string ShowableText(std::string_view text, size_t max_bytes) {
  const std::string valid = ValidUtf8(text);
  std::string out;
  out.reserve(std::min(valid.size(), max_bytes) + 16);
  size_t i = 0;
  for (; i < valid.size() && out.size() < max_bytes;) {
    const auto byte = static_cast<unsigned char>(valid[i]);
    char escape[16];
    if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
      std::snprintf(escape, sizeof(escape), "\\x%02x", byte);
      out += escape;
      ++i;
    } else if (byte == 0xC2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) < 0xA0) {  // U+0080-U+009F
      std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned char>(valid[i + 1]));
      out += escape;
      i += 2;
    } else {
      const size_t length = SequenceLength(valid, i);
      out.append(valid, i, length);
      i += length;
    }
  }
  if (i < valid.size()) {
    out += " [... " + std::to_string(valid.size() - i) + " more bytes]";
  }
  return out;
}

}  // namespace cannbot
