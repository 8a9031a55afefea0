#include "cannbot/util/fs.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include "unit_support.h"

namespace cannbot {
namespace {

using cannbot::test::Contains;

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

TEST(FsTest, ReadMissingFileIsNotFoundNamingThePath) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  const std::string path = dir->File("no-such-file.txt");
  auto data = ReadFile(path);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), Status::Code::kNotFound);
  EXPECT_TRUE(Contains(data.status().message(), path)) << data.status().ToString();
}

TEST(FsTest, WriteThenReadRoundTripsBinaryData) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  std::string data("head\0mid\xff\x01tail", 15);
  for (int i = 0; i < 200000; ++i) data.push_back(static_cast<char>(i * 131 % 256));
  const std::string path = dir->File("blob.bin");
  ASSERT_TRUE(WriteFile(path, data).ok());
  EXPECT_TRUE(PathExists(path));
  auto back = ReadFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), data.size());
  EXPECT_TRUE(back.value() == data);
}

TEST(FsTest, WriteFileReplacesAndUsesPrivateMode) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("f.txt");
  ASSERT_TRUE(WriteFile(path, "a much longer first version").ok());
  ASSERT_TRUE(WriteFile(path, "short").ok());
  auto back = ReadFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value(), "short");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0077, 0u);  // nobody else may read it
}

TEST(FsTest, EmptyFileRoundTrips) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("empty");
  ASSERT_TRUE(WriteFile(path, "").ok());
  auto back = ReadFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->empty());
}

TEST(FsTest, ReadTooLargeIsInvalidArgument) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("big");
  ASSERT_TRUE(WriteFile(path, std::string(1001, 'x')).ok());
  auto over = ReadFile(path, 1000);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(over.status().message(), path)) << over.status().ToString();
  // Exactly at the limit is fine.
  auto at = ReadFile(path, 1001);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->size(), 1001u);
}

TEST(FsTest, ReadTooLargeAcrossManyChunks) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("bigger");
  ASSERT_TRUE(WriteFile(path, std::string(300000, 'y')).ok());
  auto over = ReadFile(path, 200000);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), Status::Code::kInvalidArgument);
}

TEST(FsTest, ReadDirectoryFails) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  auto data = ReadFile(dir->path());
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(data.status().message(), dir->path())) << data.status().ToString();
}

TEST(FsTest, WriteIntoMissingDirectoryFailsNamingThePath) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->File("missing/child.txt");
  Status s = WriteFile(path, "data");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), path)) << s.ToString();
  EXPECT_FALSE(PathExists(path));
}

TEST(FsTest, TempDirIsPrivateAndRemovedOnDestruction) {
  std::string path;
  {
    auto dir = TempDir::Create("cannbot-fs-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    path = dir->path();
    EXPECT_TRUE(IsDirectory(path));
    EXPECT_TRUE(Contains(path, "cannbot-fs-test"));
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0077, 0u);
    EXPECT_EQ(dir->File("x"), path + "/x");
    // Contents, nested ones included, go with it.
    ASSERT_TRUE(WriteFile(dir->File("a.txt"), "a").ok());
    ASSERT_EQ(::mkdir(dir->File("sub").c_str(), 0700), 0);
    ASSERT_TRUE(WriteFile(dir->File("sub/b.txt"), "b").ok());
  }
  EXPECT_FALSE(PathExists(path));
}

TEST(FsTest, TwoTempDirsAreDistinct) {
  auto a = TempDir::Create("cannbot-fs-test");
  auto b = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_NE(a->path(), b->path());
}

TEST(FsTest, KeptTempDirSurvives) {
  std::string path;
  {
    auto dir = TempDir::Create("cannbot-fs-test");
    ASSERT_TRUE(dir.ok());
    path = dir->path();
    ASSERT_TRUE(WriteFile(dir->File("keep.txt"), "kept").ok());
    dir->Keep();
  }
  EXPECT_TRUE(IsDirectory(path));
  auto data = ReadFile(path + "/keep.txt");
  EXPECT_TRUE(data.ok());
  RemoveAll(path);
  EXPECT_FALSE(PathExists(path));
}

TEST(FsTest, MoveConstructionTransfersOwnership) {
  std::string path;
  {
    auto created = TempDir::Create("cannbot-fs-test");
    ASSERT_TRUE(created.ok());
    TempDir first = std::move(created).value();
    path = first.path();
    {
      TempDir second = std::move(first);
      EXPECT_EQ(second.path(), path);
      EXPECT_TRUE(first.path().empty());  // NOLINT(bugprone-use-after-move)
    }
    // The new owner removed it; the moved-from one must not have any claim left.
    EXPECT_FALSE(PathExists(path));
  }
  EXPECT_FALSE(PathExists(path));
}

TEST(FsTest, MovedFromTempDirDoesNotRemoveTheDirectory) {
  auto created = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(created.ok());
  std::string path = created->path();
  {
    TempDir first = std::move(created).value();
    TempDir second = std::move(first);
    { TempDir dying = std::move(first); }  // NOLINT(bugprone-use-after-move): an empty one
    EXPECT_TRUE(IsDirectory(path));
  }
  EXPECT_FALSE(PathExists(path));
}

TEST(FsTest, MoveAssignmentRemovesTheOverwrittenDirectory) {
  auto a = TempDir::Create("cannbot-fs-test");
  auto b = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  const std::string path_a = a->path();
  const std::string path_b = b->path();
  {
    TempDir target = std::move(a).value();
    TempDir source = std::move(b).value();
    target = std::move(source);
    EXPECT_FALSE(PathExists(path_a));  // the old directory of `target` is gone
    EXPECT_EQ(target.path(), path_b);
    EXPECT_TRUE(IsDirectory(path_b));
  }
  EXPECT_FALSE(PathExists(path_b));
}

TEST(FsTest, MoveAssignmentCarriesKeep) {
  auto kept = TempDir::Create("cannbot-fs-test");
  auto other = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(kept.ok());
  ASSERT_TRUE(other.ok());
  const std::string kept_path = kept->path();
  kept->Keep();
  {
    TempDir target = std::move(other).value();
    target = std::move(kept).value();
  }
  EXPECT_TRUE(IsDirectory(kept_path));
  RemoveAll(kept_path);
  EXPECT_FALSE(PathExists(kept_path));
}

TEST(FsTest, TempDirHonoursTmpdir) {
  auto base = TempDir::Create("cannbot-fs-test-base");
  ASSERT_TRUE(base.ok());
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", base->path().c_str(), 1);
  auto inner = TempDir::Create("inner");
  if (old) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_TRUE(inner.ok()) << inner.status().ToString();
  EXPECT_EQ(inner->path().rfind(base->path() + "/inner-", 0), 0u) << inner->path();
}

TEST(FsTest, RemoveAllToleratesMissingPaths) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  RemoveAll(dir->File("never-existed"));
  EXPECT_TRUE(IsDirectory(dir->path()));
}

TEST(FsTest, ExecutableDirIsTheDirectoryOfThisBinary) {
  const std::string dir = ExecutableDir();
  ASSERT_FALSE(dir.empty());
  EXPECT_EQ(dir.front(), '/');
  EXPECT_NE(dir.back(), '/');
  EXPECT_TRUE(IsDirectory(dir));
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe");
  EXPECT_EQ(dir, exe.parent_path().string());
  EXPECT_TRUE(PathExists(dir + "/" + exe.filename().string()));
}

// The compiler and the self-profile's `perf` are found this way.
TEST(FindInPathTest, FindsAnExecutableAsAnAbsolutePathAndNothingElse) {
  const std::string sh = FindInPath("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_EQ(sh.front(), '/');
  EXPECT_EQ(sh.substr(sh.size() - 3), "/sh");
  EXPECT_EQ(FindInPath(sh), sh);  // a path is taken as it is
  EXPECT_EQ(FindInPath("cannbot-no-such-program-7f3e"), "");
  EXPECT_EQ(FindInPath("/etc/hostname-not-executable-7f3e"), "");
  EXPECT_EQ(FindInPath("/"), "");  // a directory is not a program
}

TEST(FsTest, APlainRelativePathStaysBelowItsDirectory) {
  EXPECT_TRUE(IsPlainRelativePath("op_host/add_custom.cpp"));
  EXPECT_TRUE(IsPlainRelativePath("kernel.h"));
  for (const char* bad : {"", "/etc/passwd", "../x.h", "op_host/../../x.h", "a//b", "./a",
                          "a/", "a\\b"}) {
    EXPECT_FALSE(IsPlainRelativePath(bad)) << bad;
  }
}

TEST(FsTest, WriteFilesUnderCreatesFoldersAndRefusesEscapesBeforeWriting) {
  auto dir = TempDir::Create("cannbot-fs-test");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(WriteFilesUnder(dir->path(), {{"a/b/c.h", "x"}, {"d.cpp", "y"}}).ok());
  EXPECT_EQ(*ReadFile(dir->File("a/b/c.h")), "x");
  const Status refused = WriteFilesUnder(dir->path(), {{"e.cpp", "z"}, {"../f.cpp", "w"}});
  EXPECT_EQ(refused.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.message().find("../f.cpp"), std::string::npos);
  EXPECT_FALSE(PathExists(dir->File("e.cpp")));  // nothing of a refused list is written
}

}  // namespace
}  // namespace cannbot
