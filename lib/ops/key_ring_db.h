// cubd's KeyRing (lib/sign/key_ring.h): its signing key, loaded from a file, and the trusted
// keys of the database (lib/store/trusted_keys.h).
//
// - The signing key is recorded in the database as a Server key the first time a cubd loads
//   it (and never removed), so whatever it signed keeps verifying after cubd is started with
//   another key (rotation), on every replica, until an admin revokes it.
// - With `create_key` false and no file at `key_path` (a Kubernetes Secret not mounted yet),
//   the ring starts without a signing key: snapshots then carry no `signing` and say why, and
//   a thread looks for the file again every `key_poll` until it appears and loads.
// - A signing key that has been revoked does not sign: snapshots carry no `signing` then.
// - Snapshots are cached for `cache`, so a trust or revoke made through another replica shows
//   within that time; Refresh() (after one made through this process) drops the cache.
//   `generation` grows whenever the trusted set or the signing key changes.
// - The ring reads through a database connection of its own, so a caller holding a pooled
//   connection inside a transaction never waits on the pool for it.
// Thread-safe.
#ifndef CUB_LIB_OPS_KEY_RING_DB_H_
#define CUB_LIB_OPS_KEY_RING_DB_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/sign/key_ring.h"
#include "lib/store/pool.h"

namespace cub::ops {

struct DbKeyRingOptions {
  std::string key_path;    // the signing key's PEM file (PKCS#8, mode 0600 or 0400)
  bool create_key = true;  // make the file when absent (SigningKey::LoadOrCreate)
  absl::Duration cache = absl::Seconds(2);
  absl::Duration key_poll = absl::Seconds(2);
  // Where the ring says which key it signs with, and that it waits for one (cubd's stderr).
  std::function<void(const std::string&)> log;
};

class DbKeyRing final : public sign::KeyRing {
 public:
  // Loads (or makes) the key and reads the trusted set once, recording the key. Errors: those
  // of SigningKey::LoadOrCreate for a file that exists but does not load (prefixed with the
  // path), and the database's.
  static absl::StatusOr<std::shared_ptr<DbKeyRing>> Open(const std::string& db_url,
                                                         DbKeyRingOptions opts);
  ~DbKeyRing() override;

  absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> Snapshot() override;
  void Refresh() override;

  DbKeyRing(const std::string& db_url, DbKeyRingOptions opts);  // use Open

 private:
  void Log(const std::string& line) const;
  // Reads the database into a new snapshot; mu_ held.
  absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> ReadLocked();
  // Tries the key file once; mu_ held. True when a key is loaded.
  bool TryLoadLocked();
  void PollForKey();

  const DbKeyRingOptions opts_;
  store::ConnectionPool pool_;

  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::optional<sign::SigningKey> key_;
  std::string missing_;    // why there is no key_
  bool recorded_ = false;  // key_ is in the database
  std::shared_ptr<const sign::KeySnapshot> cached_;
  absl::Time read_at_;
  int64_t generation_ = 0;
  std::string fingerprint_;  // of the last snapshot: trusted ids and signing id
  std::thread poller_;
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_KEY_RING_DB_H_
