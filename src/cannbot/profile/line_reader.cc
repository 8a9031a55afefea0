#include "cannbot/profile/line_reader.h"

#include <algorithm>
#include <cstring>

namespace cannbot::profile {
namespace {

constexpr size_t kChunk = size_t{256} << 10;

}  // namespace

LineReader::LineReader(std::istream* in, size_t max_line_bytes)
    : in_(in), max_line_bytes_(max_line_bytes) {
  buffer_.resize(std::max(kChunk, max_line_bytes_) + kChunk);
}

bool LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {  // keep the unread tail at the front
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const size_t room = buffer_.size() - end_;
  if (room == 0) return false;
  in_->read(buffer_.data() + end_, static_cast<std::streamsize>(room));
  const size_t got = static_cast<size_t>(in_->gcount());
  end_ += got;
  if (got < room) eof_ = true;
  return got > 0;
}

LineReader::Read LineReader::Next(std::string_view* line) {
  size_t scanned = begin_;
  while (true) {
    const void* nl = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (nl != nullptr) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - buffer_.data());
      if (at - begin_ > max_line_bytes_) return TooLong();
      return Emit(at, at + 1, line);
    }
    if (end_ - begin_ > max_line_bytes_) return TooLong();
    const size_t unread = end_ - begin_;
    if (!Fill()) {
      if (end_ == begin_) return Read::kEnd;
      return Emit(end_, end_, line);  // the last line has no newline
    }
    scanned = begin_ + unread;  // Fill() moved the unread bytes to the front
  }
}

LineReader::Read LineReader::Emit(size_t stop, size_t next, std::string_view* line) {
  if (stop > begin_ && buffer_[stop - 1] == '\r') --stop;
  *line = std::string_view(buffer_.data() + begin_, stop - begin_);
  begin_ = next;
  ++line_number_;
  if (first_) {
    first_ = false;
    if (line->size() >= 3 && std::memcmp(line->data(), "\xEF\xBB\xBF", 3) == 0) {
      line->remove_prefix(3);
    }
  }
  return Read::kLine;
}

LineReader::Read LineReader::TooLong() {
  begin_ = end_ = 0;
  eof_ = true;
  ++line_number_;
  return Read::kTooLong;
}

}  // namespace cannbot::profile
