// Store: cannbot's durable state in one SQLite file: the compile cache, the measured machine
// model, and the results of offline parameter searches, and the daemon's jobs, attempts and
// progress events (their tables belong to service/job_store.h).
//
// The default file is $CANNBOT_HOME/cannbot.db, else $XDG_CACHE_HOME/cannbot/cannbot.db, else
// ~/.cache/cannbot/cannbot.db. Compiled shared objects are stored as blobs keyed by a content
// hash, so a cache entry is either complete or absent. The compile cache is bounded
// (StoreOptions): oversized objects are not kept, and the least recently used entries go when
// the total passes its cap.
//
// Thread-safety: safe to share between threads (the Database serialises access); several
// processes may use one file (WAL mode, busy timeout).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "cannbot/store/database.h"
#include "cannbot/util/status.h"

namespace cannbot::store {

struct CompiledEntry {
  bool ok = false;
  std::string shared_object;  // the .so bytes when ok
  std::string log;            // compiler output
  std::string reason;         // one sentence when !ok
  double seconds = 0;         // how long the original compile took
};

// Limits of the compile cache. An entry's size is its object, log and reason together.
struct StoreOptions {
  // An entry with a larger shared object is not cached (it is rebuilt when needed).
  size_t max_object_bytes = size_t{64} << 20;  // 64 MiB
  // After an insertion, the least recently used entries (a hit counts as a use) are evicted
  // until the entries total at most this.
  size_t max_cache_bytes = size_t{1} << 30;  // 1 GiB
};

// The winner of an offline parameter search, for one (op, shape, machine, compiler) key.
struct TunedKernel {
  std::string recipe;
  std::string params;  // "UNROLL=2 NT_STORES=0"
  std::string code;
  double speedup = 0;  // against the baseline it was tuned with
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::string& path,
                                             const StoreOptions& options = StoreOptions());
  static std::string DefaultPath();

  // A hit marks the entry as just used.
  Result<std::optional<CompiledEntry>> FindCompiled(const std::string& key);
  // Skips an entry whose object exceeds max_object_bytes (Ok: caching is best effort), then
  // evicts down to max_cache_bytes.
  Status PutCompiled(const std::string& key, const CompiledEntry& entry);

  Result<std::optional<TunedKernel>> FindTuned(const std::string& key);
  Status PutTuned(const std::string& key, const TunedKernel& tuned);

  Result<std::optional<std::string>> FindMachineModel(const std::string& machine_id);
  Status PutMachineModel(const std::string& machine_id, const std::string& json);

  Database& database() { return *db_; }

 private:
  Store(std::unique_ptr<Database> db, const StoreOptions& options)
      : db_(std::move(db)), options_(options) {}
  std::unique_ptr<Database> db_;
  StoreOptions options_;
};

}  // namespace cannbot::store
