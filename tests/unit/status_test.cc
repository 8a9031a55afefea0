#include "cannbot/util/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace cannbot {
namespace {

TEST(StatusTest, DefaultAndOkAreOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kOk);
  EXPECT_TRUE(s.message().empty());
  EXPECT_TRUE(Status::Ok().ok());
  EXPECT_EQ(Status::Ok().ToString(), "OK");
}

TEST(StatusTest, FactoriesSetCodeAndMessage) {
  struct Case {
    Status status;
    Status::Code code;
    const char* name;
  };
  const Case cases[] = {
      {Status::InvalidArgument("m1"), Status::Code::kInvalidArgument, "invalid_argument"},
      {Status::NotFound("m2"), Status::Code::kNotFound, "not_found"},
      {Status::IoError("m3"), Status::Code::kIoError, "io_error"},
      {Status::Timeout("m4"), Status::Code::kTimeout, "timeout"},
      {Status::Unavailable("m5"), Status::Code::kUnavailable, "unavailable"},
      {Status::Aborted("m6"), Status::Code::kAborted, "aborted"},
      {Status::Internal("m7"), Status::Code::kInternal, "internal"},
  };
  int i = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.message(), "m" + std::to_string(i));
    EXPECT_STREQ(Status::CodeName(c.code), c.name);
    ++i;
  }
  EXPECT_STREQ(Status::CodeName(Status::Code::kOk), "ok");
}

TEST(StatusTest, ToStringUsesSpacedCodeNameAndMessage) {
  EXPECT_EQ(Status::InvalidArgument("bad shape").ToString(), "invalid argument: bad shape");
  EXPECT_EQ(Status::NotFound("x.cpp").ToString(), "not found: x.cpp");
  EXPECT_EQ(Status::IoError("disk").ToString(), "io error: disk");
  EXPECT_EQ(Status::Timeout("slow").ToString(), "timeout: slow");
}

TEST(StatusTest, WithContextPrefixesAndKeepsCode) {
  Status s = Status::NotFound("candidate.cpp: no such file").WithContext("compiling candidate");
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(), "compiling candidate: candidate.cpp: no such file");
  Status twice = s.WithContext("job 7");
  EXPECT_EQ(twice.code(), Status::Code::kNotFound);
  EXPECT_EQ(twice.message(), "job 7: compiling candidate: candidate.cpp: no such file");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status s = Status::Ok().WithContext("anything");
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(s.message().empty());
}

TEST(ResultTest, HoldsValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(*r, 42);
  *r = 7;
  EXPECT_EQ(r.value(), 7);
}

TEST(ResultTest, HoldsStatus) {
  Result<int> r = Status::Timeout("too slow");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kTimeout);
  EXPECT_EQ(r.status().message(), "too slow");
}

TEST(ResultTest, ArrowAndMoveOut) {
  Result<std::string> r = std::string("hello");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->size(), 5u);
  std::string moved = std::move(r).value();
  EXPECT_EQ(moved, "hello");

  Result<std::unique_ptr<int>> p = std::make_unique<int>(5);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> owned = std::move(p).value();
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, 5);
}

// Helpers for the macros.
Result<int> Parse(bool succeed, int value) {
  if (!succeed) return Status::InvalidArgument("cannot parse");
  return value;
}

Status Check(bool succeed) {
  return succeed ? Status::Ok() : Status::Aborted("check failed");
}

Result<int> AddParsed(bool first_ok, bool second_ok, int* reached) {
  CANNBOT_ASSIGN_OR_RETURN(int a, Parse(first_ok, 2));
  ++*reached;
  CANNBOT_ASSIGN_OR_RETURN(int b, Parse(second_ok, 3));
  ++*reached;
  return a + b;
}

Result<std::unique_ptr<int>> MakeBox(bool succeed) {
  if (!succeed) return Status::NotFound("no box");
  return std::make_unique<int>(9);
}

Result<int> Unbox(bool succeed) {
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(succeed));  // move-only
  return *box;
}

Status RunChecks(bool first_ok, bool second_ok, int* reached) {
  CANNBOT_RETURN_IF_ERROR(Check(first_ok));
  ++*reached;
  CANNBOT_RETURN_IF_ERROR(Check(second_ok).WithContext("second"));
  ++*reached;
  return Status::Ok();
}

TEST(StatusMacrosTest, AssignOrReturnAssignsOnSuccess) {
  int reached = 0;
  Result<int> r = AddParsed(true, true, &reached);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), 5);
  EXPECT_EQ(reached, 2);
}

TEST(StatusMacrosTest, AssignOrReturnPropagatesFirstFailure) {
  int reached = 0;
  Result<int> r = AddParsed(false, true, &reached);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "cannot parse");
  EXPECT_EQ(reached, 0);
}

TEST(StatusMacrosTest, AssignOrReturnPropagatesLaterFailure) {
  int reached = 0;
  Result<int> r = AddParsed(true, false, &reached);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(reached, 1);
}

TEST(StatusMacrosTest, AssignOrReturnWorksWithMoveOnlyValues) {
  Result<int> ok = Unbox(true);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value(), 9);
  Result<int> bad = Unbox(false);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kNotFound);
  EXPECT_EQ(bad.status().message(), "no box");
}

TEST(StatusMacrosTest, ReturnIfErrorPropagates) {
  int reached = 0;
  EXPECT_TRUE(RunChecks(true, true, &reached).ok());
  EXPECT_EQ(reached, 2);

  reached = 0;
  Status first = RunChecks(false, true, &reached);
  EXPECT_EQ(first.code(), Status::Code::kAborted);
  EXPECT_EQ(first.message(), "check failed");
  EXPECT_EQ(reached, 0);

  reached = 0;
  Status second = RunChecks(true, false, &reached);
  EXPECT_EQ(second.code(), Status::Code::kAborted);
  EXPECT_EQ(second.message(), "second: check failed");
  EXPECT_EQ(reached, 1);
}

}  // namespace
}  // namespace cannbot
