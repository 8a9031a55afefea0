// The compile cache's limits (StoreOptions in cannbot/store/store.h): an object larger than
// max_object_bytes is not cached, and the cache's total stays under max_cache_bytes by evicting
// the least recently used entries, including entries a store cached under an older schema,
// before usage was recorded. The rest of the store's tests are in store_test.cc.
//
// Unit tests are compiled as a unity build: the fixture has a name of its own, not that of
// StoreTest in store_test.cc.
#include "cannbot/store/store.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "cannbot/store/database.h"
#include "cannbot/util/fs.h"

namespace cannbot::store {
namespace {

class StoreCacheLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-store-cache-limits-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
  }

  std::string Path(const std::string& name) const { return dir_->File(name); }

  std::unique_ptr<TempDir> dir_;
};

CompiledEntry ObjectOf(size_t bytes) {
  CompiledEntry entry;
  entry.ok = true;
  entry.shared_object = std::string(bytes, 'o');
  return entry;
}

// Without FindCompiled, which counts as a use.
bool IsCached(Store& store, const std::string& key) {
  auto rows = store.database().Query("SELECT COUNT(*) FROM compile_cache WHERE key = ?", {key});
  return rows.ok() && IntAt((*rows)[0], 0) == 1;
}

int64_t CachedBytes(Store& store) {
  auto rows = store.database().Query(
      "SELECT COALESCE(SUM(length(shared_object) + length(log) + length(reason)), 0), "
      "(SELECT COUNT(*) FROM compile_cache_use) - COUNT(*) FROM compile_cache");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(IntAt((*rows)[0], 1), 0) << "compile_cache_use out of step";
  return IntAt((*rows)[0], 0);
}

TEST_F(StoreCacheLimitsTest, OversizeObjectIsNotCached) {
  EXPECT_EQ(StoreOptions().max_object_bytes, size_t{64} << 20);
  EXPECT_EQ(StoreOptions().max_cache_bytes, size_t{1} << 30);
  StoreOptions options;
  options.max_object_bytes = 1000;
  auto store = Store::Open(Path("limits.db"), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE((*store)->PutCompiled("at-limit", ObjectOf(1000)).ok());
  EXPECT_TRUE((*store)->PutCompiled("over-limit", ObjectOf(1001)).ok());  // skipped: Ok
  EXPECT_TRUE(IsCached(**store, "at-limit"));
  EXPECT_FALSE(IsCached(**store, "over-limit"));
  auto found = (*store)->FindCompiled("over-limit");
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
}

TEST_F(StoreCacheLimitsTest, EvictionKeepsTheRecentlyUsedEntryAndDropsTheOldest) {
  StoreOptions options;
  options.max_cache_bytes = 3000;
  auto store = Store::Open(Path("lru.db"), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (const char* key : {"a", "b", "c"}) {
    ASSERT_TRUE((*store)->PutCompiled(key, ObjectOf(1000)).ok());
  }
  EXPECT_EQ(CachedBytes(**store), 3000);  // at the cap, nothing evicted
  auto hit = (*store)->FindCompiled("a");  // "a" becomes the most recently used
  ASSERT_TRUE(hit.ok() && hit->has_value());
  ASSERT_TRUE((*store)->PutCompiled("d", ObjectOf(1000)).ok());
  EXPECT_TRUE(IsCached(**store, "a"));
  EXPECT_FALSE(IsCached(**store, "b"));  // the least recently used
  EXPECT_TRUE(IsCached(**store, "c"));
  EXPECT_TRUE(IsCached(**store, "d"));
  EXPECT_EQ(CachedBytes(**store), 3000);
}

TEST_F(StoreCacheLimitsTest, CacheTotalStaysUnderTheCap) {
  StoreOptions options;
  options.max_cache_bytes = 10000;
  auto store = Store::Open(Path("cap.db"), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (int i = 0; i < 60; ++i) {
    CompiledEntry entry = ObjectOf(static_cast<size_t>(100 + (i * 337) % 1900));
    entry.log = std::string(static_cast<size_t>(i % 7) * 50, 'l');  // logs count too
    const std::string key = "k" + std::to_string(i);
    ASSERT_TRUE((*store)->PutCompiled(key, entry).ok());
    if (i % 3 == 0) (void)(*store)->FindCompiled("k" + std::to_string(i / 2));
    EXPECT_LE(CachedBytes(**store), 10000) << "after " << key;
    EXPECT_TRUE(IsCached(**store, key));
  }
  EXPECT_GE(CachedBytes(**store), 10000 - 2300);  // evicted only what it had to
}

TEST_F(StoreCacheLimitsTest, LimitsCoverEntriesCachedBeforeTheyExisted) {
  const std::string path = Path("old.db");
  int version = 0;
  {  // A file as schema version 3 left it: entries without usage records (version 4 adds
     // them), jobs without queue columns (version 5).
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Database& db = (*store)->database();
    version = db.schema_version();
    ASSERT_TRUE(db.ExecuteScript("DROP TABLE compile_cache_use;"
                                 " DROP TRIGGER compile_cache_inserted;"
                                 " DROP TRIGGER compile_cache_deleted;"
                                 " ALTER TABLE jobs DROP COLUMN priority;"
                                 " ALTER TABLE jobs DROP COLUMN owner;"
                                 " ALTER TABLE jobs DROP COLUMN lease_owner;"
                                 " ALTER TABLE jobs DROP COLUMN lease_until;"
                                 " ALTER TABLE jobs DROP COLUMN cancel_requested;")
                    .ok());
    ASSERT_TRUE(db.Execute("PRAGMA user_version=3").ok());
    for (const char* key : {"old1", "old2"}) {
      ASSERT_TRUE(db.Execute("INSERT INTO compile_cache (key, ok, shared_object, log, reason, "
                             "seconds) VALUES (?, 1, ?, '', '', 1)",
                             {std::string(key), Blob{std::string(1000, 'o')}})
                      .ok());
    }
  }
  StoreOptions options;
  options.max_cache_bytes = 2500;
  auto store = Store::Open(path, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->database().schema_version(), version);
  EXPECT_EQ(CachedBytes(**store), 2000);
  ASSERT_TRUE((*store)->PutCompiled("new", ObjectOf(1000)).ok());
  EXPECT_FALSE(IsCached(**store, "old1"));
  EXPECT_TRUE(IsCached(**store, "old2"));
  EXPECT_TRUE(IsCached(**store, "new"));
}

}  // namespace
}  // namespace cannbot::store
