// Status and Result<T>: how the core reports success or failure without exceptions.
//
// A Status is either OK or carries a code and a one-sentence message meant for a person
// ("candidate.cpp: file is empty"). Result<T> holds either a value or a non-OK Status.
// Exceptions are used only at the edges (CLI, HTTP) and are converted into these types.
//
// Thread-safety: both are plain values; distinct objects may be used from distinct threads.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace cannbot {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // the caller's input is wrong (usage error)
    kNotFound,         // a named thing (file, op, job) does not exist
    kIoError,          // the operating system refused (open, write, spawn)
    kTimeout,          // a time limit ran out
    kUnavailable,      // a dependency (server, store) cannot be reached right now
    kAborted,          // untrusted code misbehaved: crashed, hung, or broke the protocol
    kInternal,         // a bug or an invariant that did not hold
  };

  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {Code::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status IoError(std::string msg) { return {Code::kIoError, std::move(msg)}; }
  static Status Timeout(std::string msg) { return {Code::kTimeout, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {Code::kUnavailable, std::move(msg)}; }
  static Status Aborted(std::string msg) { return {Code::kAborted, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "invalid argument: <message>", or "OK".
  std::string ToString() const;
  // Stable lower-case identifier of the code ("invalid_argument"), used in JSON error shapes.
  static const char* CodeName(Code code);

  // Prefixes the message with context ("compiling candidate: ..."), keeping the code.
  Status WithContext(const std::string& context) const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).ok() && "Result needs a non-OK status or a value");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOkStatus;
    return ok() ? kOkStatus : std::get<Status>(data_);
  }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace cannbot

// Returns early from the enclosing function when `expr` (a Status) is not OK.
#define CANNBOT_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::cannbot::Status cannbot_status_ = (expr);    \
    if (!cannbot_status_.ok()) return cannbot_status_; \
  } while (0)

#define CANNBOT_CONCAT_INNER(a, b) a##b
#define CANNBOT_CONCAT(a, b) CANNBOT_CONCAT_INNER(a, b)
// Declares `lhs` from a Result-returning expression, or returns its Status early.
#define CANNBOT_ASSIGN_OR_RETURN(lhs, expr) \
  CANNBOT_ASSIGN_OR_RETURN_IMPL(CANNBOT_CONCAT(cannbot_result_, __LINE__), lhs, expr)
#define CANNBOT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
