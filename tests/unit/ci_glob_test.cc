// Repository-config globs (ci/glob.h): whole-path matching, '*' within a directory, '**'
// across directories (including none), sets, escapes, and no exponential blow-up.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "cannbot/ci/glob.h"

namespace cannbot::ci {
namespace {

TEST(CiGlobTest, StarStaysWithinOneDirectory) {
  EXPECT_TRUE(GlobMatch("ops/*.cpp", "ops/add.cpp"));
  EXPECT_FALSE(GlobMatch("ops/*.cpp", "ops/add/add.cpp"));
  EXPECT_FALSE(GlobMatch("*.cpp", "ops/add.cpp"));  // whole path, unlike .gitignore
  EXPECT_TRUE(GlobMatch("*.cpp", "add.cpp"));
  EXPECT_FALSE(GlobMatch("ops/*.cpp", "ops/add.cc"));
}

TEST(CiGlobTest, DoubleStarCrossesDirectoriesAndMayBeEmpty) {
  EXPECT_TRUE(GlobMatch("ops/**/*.cpp", "ops/add.cpp"));
  EXPECT_TRUE(GlobMatch("ops/**/*.cpp", "ops/a/b/c/add.cpp"));
  EXPECT_TRUE(GlobMatch("**/*.cpp", "add.cpp"));
  EXPECT_TRUE(GlobMatch("**/*.cpp", "x/y/add.cpp"));
  EXPECT_TRUE(GlobMatch("ops/**", "ops/a/b"));
  EXPECT_FALSE(GlobMatch("ops/**/*.cpp", "other/add.cpp"));
  EXPECT_FALSE(GlobMatch("ops/**/*.cpp", "opsx/add.cpp"));
}

TEST(CiGlobTest, QuestionMarkSetsAndEscapes) {
  EXPECT_TRUE(GlobMatch("k?.cpp", "k1.cpp"));
  EXPECT_FALSE(GlobMatch("k?.cpp", "k/.cpp"));
  EXPECT_TRUE(GlobMatch("k[0-9].cpp", "k7.cpp"));
  EXPECT_FALSE(GlobMatch("k[0-9].cpp", "kx.cpp"));
  EXPECT_TRUE(GlobMatch("k[!0-9].cpp", "kx.cpp"));
  EXPECT_FALSE(GlobMatch("k[!0-9].cpp", "k1.cpp"));
  EXPECT_TRUE(GlobMatch("k[]].cpp", "k].cpp"));
  EXPECT_TRUE(GlobMatch("a\\*b", "a*b"));
  EXPECT_FALSE(GlobMatch("a\\*b", "axb"));
}

TEST(CiGlobTest, ManyStarsStayFast) {
  const std::string path(200, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(GlobMatch("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", path));
  EXPECT_FALSE(GlobMatch("**a**a**a**a**a**a**a**a**b", path));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CiGlobTest, CheckGlobRejectsWhatCannotBeMeant) {
  EXPECT_TRUE(CheckGlob("ops/**/*.cpp").ok());
  EXPECT_FALSE(CheckGlob("").ok());
  EXPECT_FALSE(CheckGlob("/abs/*.cpp").ok());
  EXPECT_FALSE(CheckGlob("ops/[a-z.cpp").ok());
  EXPECT_FALSE(CheckGlob("ops\\").ok());
  EXPECT_NE(CheckGlob("/abs").message().find("relative to the repository root"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::ci
