// ValidUtf8: what an untrusted process printed, made safe for JSON without losing the rest.
#include "cannbot/util/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cannbot {
namespace {

TEST(Utf8Test, KeepsValidTextAndReplacesEachInvalidByte) {
  EXPECT_EQ(ValidUtf8("plain\ttext\nwith lines"), "plain\ttext\nwith lines");
  EXPECT_EQ(ValidUtf8("\xE6\x98\x87\xE8\x85\xBE ok"), "\xE6\x98\x87\xE8\x85\xBE ok");  // 昇腾
  EXPECT_EQ(ValidUtf8("a\xFF\xFE" "b"), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  EXPECT_EQ(ValidUtf8("\x80"), "\xEF\xBF\xBD");                  // a stray continuation
  EXPECT_EQ(ValidUtf8("x\xE6\x98"), "x\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");    // overlong '/'
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80").find("\xEF\xBF\xBD"), 0u);  // past U+10FFFF
}

TEST(Utf8Test, WhatItReturnsTheJsonWriterAccepts) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  nlohmann::json j = {{"log", ValidUtf8(all + all.substr(0, 200))}};
  EXPECT_NO_THROW((void)j.dump());
  nlohmann::json raw = {{"log", all}};
  EXPECT_THROW((void)raw.dump(), nlohmann::json::type_error);
}

// What a person is shown of a kernel: no terminal control sequence, newlines and tabs kept,
// and bounded at a character boundary with a note.
TEST(Utf8Test, ShowableTextEscapesControlsAndIsBounded) {
  EXPECT_EQ(ShowableText("a\x1b[2Jb\n\tc"), "a\\x1b[2Jb\n\tc");
  EXPECT_EQ(ShowableText("\x7f\x01"), "\\x7f\\x01");
  EXPECT_EQ(ShowableText("x\xc2\x9b" "2J"), "x\\u009b2J");       // C1 CSI
  EXPECT_EQ(ShowableText("\xc2\xa0ok"), "\xc2\xa0ok");            // U+00A0 is text
  EXPECT_EQ(ShowableText("\xE6\x98\x87\xFF"), "\xE6\x98\x87\xEF\xBF\xBD");
  EXPECT_EQ(ShowableText("abcdef", 3), "abc [... 3 more bytes]");
  // Never cut inside a character: 昇 is three bytes.
  EXPECT_EQ(ShowableText("\xE6\x98\x87\xE6\x98\x87", 4), "\xE6\x98\x87\xE6\x98\x87");
  const std::string huge(1 << 20, 'x');
  EXPECT_LT(ShowableText(huge, 4096).size(), 4200u);
}

}  // namespace
}  // namespace cannbot
