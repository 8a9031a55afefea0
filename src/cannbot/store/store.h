// Store: cannbot's durable state in one SQLite file: the compile cache, the measured machine
// model, and the results of offline parameter searches, and the daemon's jobs, attempts and
// progress events (their tables belong to service/job_store.h).
//
// The default file is $CANNBOT_HOME/cannbot.db, else $XDG_CACHE_HOME/cannbot/cannbot.db, else
// ~/.cache/cannbot/cannbot.db. Compiled shared objects are stored as blobs keyed by a content
// hash, so a cache entry is either complete or absent.
//
// Thread-safety: safe to share between threads (the Database serialises access); several
// processes may use one file (WAL mode, busy timeout).
#pragma once

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

// The winner of an offline parameter search, for one (op, shape, machine, compiler) key.
struct TunedKernel {
  std::string recipe;
  std::string params;  // "UNROLL=2 NT_STORES=0"
  std::string code;
  double speedup = 0;  // against the baseline it was tuned with
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::string& path);
  static std::string DefaultPath();

  Result<std::optional<CompiledEntry>> FindCompiled(const std::string& key);
  Status PutCompiled(const std::string& key, const CompiledEntry& entry);

  Result<std::optional<TunedKernel>> FindTuned(const std::string& key);
  Status PutTuned(const std::string& key, const TunedKernel& tuned);

  Result<std::optional<std::string>> FindMachineModel(const std::string& machine_id);
  Status PutMachineModel(const std::string& machine_id, const std::string& json);

  Database& database() { return *db_; }

 private:
  explicit Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  std::unique_ptr<Database> db_;
};

}  // namespace cannbot::store
