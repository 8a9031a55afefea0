// LineReader: streams a profile file line by line with a fixed-size buffer.
//
// Profiles can be hundreds of megabytes, so importers never hold a whole file: they read one
// line, fold it into per-kernel aggregates and forget it. The reader strips "\n" / "\r\n",
// a leading UTF-8 byte-order mark, and counts lines for error messages. A line longer than
// the limit (binary data, a file without newlines) is reported, never buffered whole.
//
// Ownership: borrows the stream, which must outlive the reader. Thread-safety: one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace cannbot::profile {

class LineReader {
 public:
  enum class Read { kLine, kEnd, kTooLong };

  explicit LineReader(std::istream* in, size_t max_line_bytes = size_t{1} << 20);

  // The next line, valid until the following call. kTooLong leaves the reader at the end.
  Read Next(std::string_view* line);
  // 1-based number of the line Next() returned last.
  int64_t line_number() const { return line_number_; }
  size_t max_line_bytes() const { return max_line_bytes_; }

 private:
  bool Fill();  // reads more input behind the unread bytes; false at end of input
  // Returns the line from begin_ to `stop` (minus a '\r') and resumes at `next`.
  Read Emit(size_t stop, size_t next, std::string_view* line);
  Read TooLong();

  std::istream* in_;
  size_t max_line_bytes_;
  std::string buffer_;
  size_t begin_ = 0;  // first unread byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool first_ = true;
  int64_t line_number_ = 0;
};

}  // namespace cannbot::profile
