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

}  // namespace
}  // namespace cannbot
