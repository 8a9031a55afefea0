#include "cannbot/store/store.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "cannbot/store/database.h"
#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot::store {
namespace {

using cannbot::test::Contains;

// Sets or unsets an environment variable for one scope, restoring the old value afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-store-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }

  std::string Path(const std::string& name) const { return dir_->File(name); }

  static int64_t UserVersion(Database& db) {
    auto rows = db.Query("PRAGMA user_version");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok() || rows->empty()) return -1;
    return IntAt((*rows)[0], 0, -1);
  }

  std::unique_ptr<TempDir> dir_;
};

const std::vector<std::string>& ThreeMigrations() {
  static const std::vector<std::string> kMigrations = {
      "CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
      "CREATE TABLE b (k TEXT PRIMARY KEY, v BLOB); INSERT INTO b VALUES ('seed', x'00ff');",
      "ALTER TABLE a ADD COLUMN score REAL;",
  };
  return kMigrations;
}

TEST_F(StoreTest, FreshDatabaseGetsSchemaVersionEqualToMigrationCount) {
  auto db = Database::Open(Path("fresh.db"), ThreeMigrations());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->schema_version(), 3);
  EXPECT_EQ(UserVersion(**db), 3);
  EXPECT_EQ((*db)->path(), Path("fresh.db"));
  // Every migration ran: the column added by the third exists.
  EXPECT_TRUE((*db)->Execute("INSERT INTO a (name, score) VALUES ('x', 1.5)").ok());
  auto seed = (*db)->Query("SELECT v FROM b WHERE k = 'seed'");
  ASSERT_TRUE(seed.ok());
  ASSERT_EQ(seed->size(), 1u);
  EXPECT_EQ(TextAt((*seed)[0], 0), std::string("\0\xff", 2));
}

TEST_F(StoreTest, NoMigrationsMeansVersionZero) {
  auto db = Database::Open(Path("empty.db"), {});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->schema_version(), 0);
  EXPECT_EQ(UserVersion(**db), 0);
}

TEST_F(StoreTest, ReopeningKeepsDataAndDoesNotRerunMigrations) {
  {
    auto db = Database::Open(Path("keep.db"), ThreeMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->Execute("INSERT INTO a (name, score) VALUES (?, ?)",
                               {std::string("kept"), 2.5})
                    .ok());
  }
  // Rerunning migration 1 (CREATE TABLE a) would fail, so success means it was skipped.
  auto db = Database::Open(Path("keep.db"), ThreeMigrations());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->schema_version(), 3);
  auto rows = (*db)->Query("SELECT name, score FROM a");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(TextAt((*rows)[0], 0), "kept");
  EXPECT_DOUBLE_EQ(DoubleAt((*rows)[0], 1), 2.5);
  auto seeds = (*db)->Query("SELECT COUNT(*) FROM b");
  ASSERT_TRUE(seeds.ok());
  EXPECT_EQ(IntAt((*seeds)[0], 0), 1);  // migration 2's insert ran exactly once
}

TEST_F(StoreTest, NewMigrationsAreAppliedOnReopen) {
  std::vector<std::string> migrations(ThreeMigrations().begin(), ThreeMigrations().begin() + 1);
  {
    auto db = Database::Open(Path("grow.db"), migrations);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ((*db)->schema_version(), 1);
    EXPECT_EQ(UserVersion(**db), 1);
  }
  auto db = Database::Open(Path("grow.db"), ThreeMigrations());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->schema_version(), 3);
  EXPECT_EQ(UserVersion(**db), 3);
  EXPECT_TRUE((*db)->Execute("INSERT INTO a (name, score) VALUES ('y', 0)").ok());
}

TEST_F(StoreTest, FailingMigrationIsRolledBackAndReported) {
  std::vector<std::string> migrations = {
      "CREATE TABLE ok_table (x INTEGER);",
      "CREATE TABLE half_done (x INTEGER); THIS IS NOT SQL;",
  };
  {
    auto db = Database::Open(Path("broken.db"), migrations);
    ASSERT_FALSE(db.ok());
    EXPECT_TRUE(Contains(db.status().message(), "schema version 2")) << db.status().ToString();
    EXPECT_TRUE(Contains(db.status().message(), Path("broken.db"))) << db.status().ToString();
  }
  // Version 1 was committed; version 2 left nothing behind.
  auto db = Database::Open(Path("broken.db"), {migrations[0]});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(UserVersion(**db), 1);
  auto tables = (*db)->Query("SELECT name FROM sqlite_master WHERE name = 'half_done'");
  ASSERT_TRUE(tables.ok());
  EXPECT_TRUE(tables->empty());
}

TEST_F(StoreTest, NewerSchemaIsRefused) {
  {
    auto db = Database::Open(Path("newer.db"), ThreeMigrations());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  std::vector<std::string> older(ThreeMigrations().begin(), ThreeMigrations().begin() + 2);
  auto db = Database::Open(Path("newer.db"), older);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(db.status().message(), "3")) << db.status().ToString();
  EXPECT_TRUE(Contains(db.status().message(), "newer")) << db.status().ToString();
}

// BUG: database.cc:84-95 (Database::Migrate) reads PRAGMA user_version before taking the
// write lock (BEGIN IMMEDIATE) and never re-reads it afterwards. When another process
// migrates the same file between that read and the lock, this opener re-runs migrations that
// are already applied and fails ("table ... already exists"), although store.h promises that
// several processes may use one file. Two cannbot processes opening a fresh store at the same
// time hit this. The test stands in for the other process with a second connection that
// holds the write lock while this opener starts, then applies the migrations and commits.
TEST_F(StoreTest, ConcurrentOpenerDoesNotRerunMigrationsAppliedMeanwhile) {
  const std::string path = Path("race.db");
  auto other = Database::Open(path, {});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  ASSERT_TRUE((*other)->Execute("BEGIN IMMEDIATE").ok());
  std::optional<Status> opened;
  int version = -1;
  std::thread opener([&] {
    auto db = Database::Open(path, ThreeMigrations());
    opened = db.status();
    if (db.ok()) version = (*db)->schema_version();
  });
  // Give the opener time to read the old version and block on the write lock (it waits up
  // to its 5 s busy timeout). Were it slower than this, it would merely see the new version.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // EXPECT, not ASSERT: the thread must be joined whatever happens.
  for (const std::string& migration : ThreeMigrations()) {
    EXPECT_TRUE((*other)->ExecuteScript(migration).ok());
  }
  EXPECT_TRUE((*other)->Execute("PRAGMA user_version=3").ok());
  EXPECT_TRUE((*other)->Execute("COMMIT").ok());
  opener.join();
  ASSERT_TRUE(opened.has_value());
  EXPECT_TRUE(opened->ok()) << opened->ToString();
  EXPECT_EQ(version, 3);
}

TEST_F(StoreTest, ValuesRoundTripThroughParameters) {
  auto db = Database::Open(Path("values.db"), {"CREATE TABLE t (a, b, c, d, e);"});
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const std::string text_with_nul("te\0xt", 5);
  const std::string blob_bytes("\0\x01\x02\0\xff", 5);
  ASSERT_TRUE((*db)->Execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                             {nullptr, int64_t{-1234567890123}, 0.125, text_with_nul,
                              Blob{blob_bytes}})
                  .ok());
  auto rows = (*db)->Query("SELECT a, b, c, d, e FROM t");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  const Row& row = (*rows)[0];
  ASSERT_EQ(row.size(), 5u);
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(row[0]));
  ASSERT_TRUE(std::holds_alternative<int64_t>(row[1]));
  EXPECT_EQ(std::get<int64_t>(row[1]), -1234567890123);
  ASSERT_TRUE(std::holds_alternative<double>(row[2]));
  EXPECT_EQ(std::get<double>(row[2]), 0.125);
  ASSERT_TRUE(std::holds_alternative<std::string>(row[3]));
  EXPECT_EQ(std::get<std::string>(row[3]), text_with_nul);
  ASSERT_TRUE(std::holds_alternative<Blob>(row[4]));
  EXPECT_EQ(std::get<Blob>(row[4]).bytes, blob_bytes);
  // Typed accessors, and their fallbacks on a wrong type or a missing column.
  EXPECT_EQ(IntAt(row, 1), -1234567890123);
  EXPECT_DOUBLE_EQ(DoubleAt(row, 2), 0.125);
  EXPECT_DOUBLE_EQ(DoubleAt(row, 1), -1234567890123.0);
  EXPECT_EQ(TextAt(row, 3), text_with_nul);
  EXPECT_EQ(TextAt(row, 4), blob_bytes);
  EXPECT_EQ(IntAt(row, 0, 77), 77);
  EXPECT_EQ(IntAt(row, 3, 78), 78);
  EXPECT_DOUBLE_EQ(DoubleAt(row, 9, 1.5), 1.5);
  EXPECT_EQ(TextAt(row, 0), "");
  EXPECT_EQ(TextAt(row, 9), "");
}

TEST_F(StoreTest, BadStatementIsAnError) {
  auto db = Database::Open(Path("bad.db"), {});
  ASSERT_TRUE(db.ok());
  Status s = (*db)->Execute("SELEKT nothing");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.message().empty());
  auto q = (*db)->Query("SELECT * FROM no_such_table");
  EXPECT_FALSE(q.ok());
  EXPECT_TRUE(Contains(q.status().message(), "no_such_table")) << q.status().ToString();
}

TEST_F(StoreTest, OpenOnADirectoryFailsNamingThePath) {
  const std::string path = Path("a-directory");
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  auto db = Database::Open(path, ThreeMigrations());
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(Contains(db.status().message(), path)) << db.status().ToString();
  auto store = Store::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(Contains(store.status().message(), path)) << store.status().ToString();
}

TEST_F(StoreTest, OpenOnAnUnwritablePathFailsNamingThePath) {
  // A path below a regular file cannot be created, whoever runs the test (root included).
  const std::string file = Path("plain-file");
  ASSERT_TRUE(WriteFile(file, "not a directory").ok());
  const std::string path = file + "/cannbot.db";
  auto db = Database::Open(path, ThreeMigrations());
  ASSERT_FALSE(db.ok());
  EXPECT_TRUE(Contains(db.status().message(), path)) << db.status().ToString();
  auto store = Store::Open(file + "/nested/cannbot.db");
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(Contains(store.status().message(), file)) << store.status().ToString();
}

TEST_F(StoreTest, StoreOpenCreatesParentDirectoriesAndSchema) {
  const std::string path = Path("deep/er/cannbot.db");
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE(PathExists(path));
  Database& db = (*store)->database();
  EXPECT_GE(db.schema_version(), 1);
  EXPECT_EQ(UserVersion(db), db.schema_version());
}

TEST_F(StoreTest, StoreReopenKeepsVersionAndRefusesNewerFile) {
  const std::string path = Path("versions.db");
  int version = 0;
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    version = (*store)->database().schema_version();
    // Pretend a newer cannbot wrote this file.
    ASSERT_TRUE((*store)
                    ->database()
                    .Execute("PRAGMA user_version=" + std::to_string(version + 1))
                    .ok());
  }
  auto refused = Store::Open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  const std::string message = refused.status().message();
  EXPECT_TRUE(Contains(message, path)) << message;
  EXPECT_TRUE(Contains(message, std::to_string(version + 1))) << message;
  EXPECT_TRUE(Contains(message, "newer")) << message;
}

TEST_F(StoreTest, CompiledEntriesRoundTripWithBinaryBlobs) {
  const std::string path = Path("cache.db");
  std::string so("\x7f" "ELF\0\0\0\x01", 8);
  for (int i = 0; i < 70000; ++i) so.push_back(static_cast<char>(i % 256));  // NULs included
  CompiledEntry good;
  good.ok = true;
  good.shared_object = so;
  good.log = std::string("warning: x\0y\n", 13);
  good.reason = "";
  good.seconds = 1.75;
  CompiledEntry bad;
  bad.ok = false;
  bad.log = "error: expected ';'";
  bad.reason = "candidate.cpp does not compile";
  bad.seconds = 0.5;
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->PutCompiled("key-good", good).ok());
    ASSERT_TRUE((*store)->PutCompiled("key-bad", bad).ok());
  }
  auto store = Store::Open(path);  // reopened: the data is durable
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto found = (*store)->FindCompiled("key-good");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_TRUE(found->has_value());
  const CompiledEntry& g = found->value();
  EXPECT_TRUE(g.ok);
  EXPECT_EQ(g.shared_object.size(), so.size());
  EXPECT_TRUE(g.shared_object == so);
  EXPECT_EQ(g.log, good.log);
  EXPECT_EQ(g.reason, "");
  EXPECT_DOUBLE_EQ(g.seconds, 1.75);

  auto found_bad = (*store)->FindCompiled("key-bad");
  ASSERT_TRUE(found_bad.ok());
  ASSERT_TRUE(found_bad->has_value());
  EXPECT_FALSE(found_bad->value().ok);
  EXPECT_TRUE(found_bad->value().shared_object.empty());
  EXPECT_EQ(found_bad->value().log, bad.log);
  EXPECT_EQ(found_bad->value().reason, bad.reason);
  EXPECT_DOUBLE_EQ(found_bad->value().seconds, 0.5);
}

TEST_F(StoreTest, MissingCompiledKeyIsEmpty) {
  auto store = Store::Open(Path("cache.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto found = (*store)->FindCompiled("never-stored");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_FALSE(found->has_value());
}

TEST_F(StoreTest, PutCompiledReplacesAnEntry) {
  auto store = Store::Open(Path("cache.db"));
  ASSERT_TRUE(store.ok());
  CompiledEntry first;
  first.ok = false;
  first.reason = "first";
  CompiledEntry second;
  second.ok = true;
  second.shared_object = std::string("\0so", 3);
  second.seconds = 3;
  ASSERT_TRUE((*store)->PutCompiled("k", first).ok());
  ASSERT_TRUE((*store)->PutCompiled("k", second).ok());
  auto found = (*store)->FindCompiled("k");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_TRUE(found->value().ok);
  EXPECT_EQ(found->value().shared_object, std::string("\0so", 3));
  EXPECT_EQ(found->value().reason, "");
  auto count = (*store)->database().Query("SELECT COUNT(*) FROM compile_cache");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(IntAt((*count)[0], 0), 1);
}

TEST_F(StoreTest, MachineModelPutFindReplace) {
  const std::string path = Path("models.db");
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto missing = (*store)->FindMachineModel("host-a");
    ASSERT_TRUE(missing.ok());
    EXPECT_FALSE(missing->has_value());
    ASSERT_TRUE((*store)->PutMachineModel("host-a", R"({"gflops": 12.5})").ok());
    ASSERT_TRUE((*store)->PutMachineModel("host-b", R"({"gflops": 3})").ok());
    ASSERT_TRUE((*store)->PutMachineModel("host-a", R"({"gflops": 13})").ok());
  }
  auto store = Store::Open(path);
  ASSERT_TRUE(store.ok());
  auto a = (*store)->FindMachineModel("host-a");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ(a->value(), R"({"gflops": 13})");
  auto b = (*store)->FindMachineModel("host-b");
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(b->has_value());
  EXPECT_EQ(b->value(), R"({"gflops": 3})");
  auto c = (*store)->FindMachineModel("host-c");
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->has_value());
}

TEST(StoreDefaultPathTest, HonoursCannbotHome) {
  ScopedEnv home("CANNBOT_HOME", "/some/where/cannbot-home");
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  EXPECT_EQ(Store::DefaultPath(), "/some/where/cannbot-home/cannbot.db");
}

TEST(StoreDefaultPathTest, FallsBackToXdgCacheHome) {
  ScopedEnv home("CANNBOT_HOME", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  EXPECT_EQ(Store::DefaultPath(), "/xdg/cache/cannbot/cannbot.db");
}

TEST(StoreDefaultPathTest, EmptyCannbotHomeCountsAsUnset) {
  ScopedEnv home("CANNBOT_HOME", "");
  ScopedEnv xdg("XDG_CACHE_HOME", "/xdg/cache");
  EXPECT_EQ(Store::DefaultPath(), "/xdg/cache/cannbot/cannbot.db");
}

TEST(StoreDefaultPathTest, FallsBackToHomeCache) {
  ScopedEnv home("CANNBOT_HOME", nullptr);
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv user_home("HOME", "/home/tester");
  EXPECT_EQ(Store::DefaultPath(), "/home/tester/.cache/cannbot/cannbot.db");
}

}  // namespace
}  // namespace cannbot::store
