// The trusted public keys (migrations/0024_trusted_keys.sql): each key cubd signed with
// (origin Server) or an admin added (origin Trusted), and once revoked, when, by whom and why.
// The database keeps the rows append-only but for that one revocation (a trigger, whoever
// asks). Keys are few (a handful per installation), so reads return them all.
//
// Every function returns a Status and never throws (lib/store/errors.h). Rows come back as
// v1::TrustedKey with times in RFC 3339 UTC; `current` is never set here (it is a property of
// the cubd process asking, lib/ops/keys.h).
#ifndef CUB_LIB_STORE_TRUSTED_KEYS_H_
#define CUB_LIB_STORE_TRUSTED_KEYS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/key.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

inline constexpr char kKeyOriginServer[] = "Server";
inline constexpr char kKeyOriginTrusted[] = "Trusted";

struct NewTrustedKey {
  std::string key_id;  // "sha256:<hex>", computed by the caller from `pem`
  std::string pem;
  std::string origin;  // kKeyOriginServer or kKeyOriginTrusted
  std::string note;
  std::string created_by;  // a username; empty for a Server key
};

// Oldest first; revoked ones only when `include_revoked`.
absl::StatusOr<std::vector<v1::TrustedKey>> ListTrustedKeys(Tx& tx, bool include_revoked);

// The key with this id, revoked or not; nullopt when none. `for_update` locks the row.
absl::StatusOr<std::optional<v1::TrustedKey>> FindTrustedKey(Tx& tx, const std::string& key_id,
                                                             bool for_update = false);

// Inserts the key and returns it as stored. ALREADY_EXISTS when a key with that id is
// recorded (revoked or not).
absl::StatusOr<v1::TrustedKey> InsertTrustedKey(Tx& tx, const NewTrustedKey& k);

// Records `k` unless a key with its id is recorded already (then nothing changes, whatever
// that row says). Returns whether it inserted.
absl::StatusOr<bool> RecordKeyIfAbsent(Tx& tx, const NewTrustedKey& k);

// Sets revoked_at = now(), revoked_by and revoke_reason on a key not yet revoked, and returns
// it as it now is. NOT_FOUND when there is no such key; FAILED_PRECONDITION when it was revoked
// already.
absl::StatusOr<v1::TrustedKey> RevokeTrustedKey(Tx& tx, const std::string& key_id,
                                                const std::string& revoked_by,
                                                const std::string& reason);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TRUSTED_KEYS_H_
