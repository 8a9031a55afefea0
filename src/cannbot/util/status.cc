#include "cannbot/util/status.h"

namespace cannbot {

const char* Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kNotFound: return "not_found";
    case Code::kIoError: return "io_error";
    case Code::kTimeout: return "timeout";
    case Code::kUnavailable: return "unavailable";
    case Code::kAborted: return "aborted";
    case Code::kInternal: return "internal";
  }
  return "internal";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string name = CodeName(code_);
  for (char& c : name) {
    if (c == '_') c = ' ';
  }
  return name + ": " + message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

}  // namespace cannbot
