// The importers' text helpers: CSV splitting, lenient numbers, UTF-8 repair, binary sniffing,
// and the streaming line reader.
#include <gtest/gtest.h>

#include <sstream>

#include "cannbot/profile/line_reader.h"
#include "cannbot/profile/text.h"

namespace cannbot::profile {
namespace {

std::vector<std::string> Split(std::string_view line, char sep = ',') {
  std::vector<std::string_view> fields;
  std::string scratch;
  EXPECT_TRUE(text::SplitCsv(line, sep, &fields, &scratch)) << line;
  return {fields.begin(), fields.end()};
}

TEST(ProfileTextTest, SplitsPlainAndQuotedFields) {
  EXPECT_EQ(Split("a,b,,c"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(Split("a,"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(Split(""), (std::vector<std::string>{""}));
  EXPECT_EQ(Split("0,\"1,64,112,112;3,3\",FLOAT16"),
            (std::vector<std::string>{"0", "1,64,112,112;3,3", "FLOAT16"}));
  EXPECT_EQ(Split("\"say \"\"hi\"\"\",x"), (std::vector<std::string>{"say \"hi\"", "x"}));
  EXPECT_EQ(Split("a;\"b;c\";d", ';'), (std::vector<std::string>{"a", "b;c", "d"}));
}

TEST(ProfileTextTest, KeepsTheMsprofTabAfterAValueForTheCallerToTrim) {
  auto fields = Split("x,1700000000000.123\t,5.5");
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[1], "1700000000000.123\t");
  EXPECT_EQ(text::Trim(fields[1]), "1700000000000.123");
}

TEST(ProfileTextTest, ReportsAQuoteLeftOpen) {
  std::vector<std::string_view> fields;
  std::string scratch;
  EXPECT_FALSE(text::SplitCsv("a,\"b,c", ',', &fields, &scratch));
}

TEST(ProfileTextTest, ParsesProfilerNumbers) {
  using K = text::Number::Kind;
  EXPECT_DOUBLE_EQ(text::ParseNumber(" 12.5 ").value, 12.5);
  EXPECT_DOUBLE_EQ(text::ParseNumber("1,234,567.25").value, 1234567.25);
  EXPECT_DOUBLE_EQ(text::ParseNumber("1e-3").value, 1e-3);
  EXPECT_DOUBLE_EQ(text::ParseNumber("+4").value, 4);
  EXPECT_TRUE(text::ParseNumber("91.4%").percent);
  EXPECT_DOUBLE_EQ(text::ParseNumber("91.4%").value, 91.4);
  for (const char* missing : {"", "N/A", "n/a", "-", "<not counted>", "<not supported>"}) {
    EXPECT_EQ(text::ParseNumber(missing).kind, K::kMissing) << missing;
  }
  for (const char* bad : {"abc", "12,5", "1,23", "12.5.3", "inf", "nan", "1e999", "0x10"}) {
    EXPECT_EQ(text::ParseNumber(bad).kind, K::kBad) << bad;
  }
}

TEST(ProfileTextTest, RepairsInvalidUtf8AndControlCharacters) {
  EXPECT_TRUE(text::IsCleanUtf8("Conv2D_été"));
  EXPECT_FALSE(text::IsCleanUtf8("Conv_\xe9t\xe9"));
  EXPECT_EQ(text::RepairUtf8("a\xff" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(text::RepairUtf8("a\x1b[31mb"), "a\xEF\xBF\xBD[31mb");
  EXPECT_EQ(text::RepairUtf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(text::RepairUtf8("日本"), "日本");
}

TEST(ProfileTextTest, SniffsBinaryData) {
  EXPECT_EQ(text::BinaryReason("Op Name,Task Duration(us)\n"), "");
  EXPECT_NE(text::BinaryReason(std::string("ab\0cd", 5)).find("NUL byte at offset 2"),
            std::string::npos);
  std::string latin1(200, '\xe9');
  EXPECT_NE(text::BinaryReason(latin1), "");
}

std::vector<std::string> ReadAll(const std::string& input, size_t max_line = 1 << 20) {
  std::istringstream in(input);
  LineReader reader(&in, max_line);
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.Next(&line) == LineReader::Read::kLine) lines.emplace_back(line);
  return lines;
}

TEST(ProfileLineReaderTest, StripsLineEndingsAndTheByteOrderMark) {
  EXPECT_EQ(ReadAll("\xEF\xBB\xBFhead\r\nrow1\r\nrow2"),
            (std::vector<std::string>{"head", "row1", "row2"}));
  EXPECT_EQ(ReadAll("a\n\nb\n"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(ReadAll("").empty());
}

TEST(ProfileLineReaderTest, ReadsLinesThatCrossBufferBoundaries) {
  std::string input;
  for (int i = 0; i < 100000; ++i) input += "line number " + std::to_string(i) + "\n";
  auto lines = ReadAll(input);
  ASSERT_EQ(lines.size(), 100000u);
  EXPECT_EQ(lines[0], "line number 0");
  EXPECT_EQ(lines[54321], "line number 54321");
  EXPECT_EQ(lines.back(), "line number 99999");
}

TEST(ProfileLineReaderTest, RefusesAnOverlongLineInsteadOfBufferingIt) {
  std::istringstream in("short\n" + std::string(5000, 'x') + "\nafter\n");
  LineReader reader(&in, 1000);
  std::string_view line;
  EXPECT_EQ(reader.Next(&line), LineReader::Read::kLine);
  EXPECT_EQ(reader.Next(&line), LineReader::Read::kTooLong);
  EXPECT_EQ(reader.line_number(), 2);
  EXPECT_EQ(reader.Next(&line), LineReader::Read::kEnd);
}

}  // namespace
}  // namespace cannbot::profile
