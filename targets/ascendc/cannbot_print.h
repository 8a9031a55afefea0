// cannbot_print.h: what an Ascend C kernel (AscendC::printf, PRINTF, DumpTensor) or its
// package's host code (printf in a tiling function) prints, tagged so that cannbot tells it
// from the emulation's own stats and violation lines (host code's std::cout and std::cerr too):
// each line goes to stdout as
//   cannbot-ascendc-print: <the line>
// Debug printing is part of how real operators are written; the validator shows it and does not
// count it against the kernel (docs/ascendc.md, "Printing"). Host code gets it by a macro the
// generated host include defines around the package's own sources (printf ->
// cannbot_ascendc_host_printf).
//
// Written for cannbot; not vendor code. Thread-safety: none (one launch at a time).
#ifndef CANNBOT_PRINT_H
#define CANNBOT_PRINT_H

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <streambuf>
#include <string>

namespace cannbot_ascendc {

inline constexpr const char* kPrefix = "cannbot-ascendc-print: ";

// Every line of `text` (a last line without '\n' too) with the prefix, then a flush, so the
// lines keep their place among the emulation's own.
inline void EmitPrinted(const char* text) {
  if (*text == '\0') std::fprintf(stdout, "%s\n", kPrefix);  // an empty line is a line too
  while (*text != '\0') {
    const char* end = std::strchr(text, '\n');
    const size_t length = end != nullptr ? static_cast<size_t>(end - text) : std::strlen(text);
    std::fprintf(stdout, "%s%.*s\n", kPrefix, static_cast<int>(length), text);
    text += length + (end != nullptr ? 1 : 0);
  }
  std::fflush(stdout);
}

inline int VPrintf(const char* format, va_list args) {
  char buffer[4096];
  const int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  EmitPrinted(buffer);
  return n;
}

// A stream whose every line is printed tagged: host code's std::cout and std::cerr.
class PrintedLines : public std::streambuf {
 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    if (c == '\n') {
      EmitPrinted(line_.c_str());
      line_.clear();
    } else {
      line_ += static_cast<char>(c);
    }
    return c;
  }

 private:
  std::string line_;
};

inline std::ostream& HostStream() {
  static PrintedLines lines;
  static std::ostream stream(&lines);
  return stream;
}

}  // namespace cannbot_ascendc

extern "C" inline int cannbot_ascendc_host_printf(const char* __restrict format, ...) {
  va_list args;
  va_start(args, format);
  const int n = cannbot_ascendc::VPrintf(format, args);
  va_end(args);
  return n;
}
namespace std {
using ::cannbot_ascendc_host_printf;  // `std::printf` in host code, after the macro
inline ostream& cannbot_ascendc_host_cout = ::cannbot_ascendc::HostStream();  // `std::cout`
}

#endif  // CANNBOT_PRINT_H
