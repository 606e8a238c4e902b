#include "lib/store/trusted_keys.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kKeyColumns =
    absl::StrCat("key_id, pem, origin, note, ", Rfc3339("created_at"),
                 " AS created_at, created_by, coalesce(", Rfc3339("revoked_at"),
                 ", '') AS revoked_at, coalesce(revoked_by, '') AS revoked_by, ", "revoke_reason");
const std::string kListKeys = absl::StrCat("SELECT ", kKeyColumns,
                                           " FROM trusted_keys WHERE $1 OR revoked_at IS NULL"
                                           " ORDER BY created_at, key_id");
const std::string kFindKey =
    absl::StrCat("SELECT ", kKeyColumns, " FROM trusted_keys WHERE key_id = $1");
const std::string kFindKeyForUpdate = absl::StrCat(kFindKey, " FOR UPDATE");
const std::string kInsertKey =
    "INSERT INTO trusted_keys (key_id, pem, origin, note, created_by)"
    " VALUES ($1, $2, $3, $4, $5)";
const std::string kRecordKey = kInsertKey + " ON CONFLICT (key_id) DO NOTHING";
const std::string kRevokeKey =
    "UPDATE trusted_keys SET revoked_at = now(), revoked_by = $2, revoke_reason = $3"
    " WHERE key_id = $1 AND revoked_at IS NULL";

v1::TrustedKey KeyFromRow(const pqxx::row& r) {
  v1::TrustedKey k;
  k.set_key_id(r["key_id"].as<std::string>());
  k.set_pem(r["pem"].as<std::string>());
  k.set_origin(r["origin"].as<std::string>());
  k.set_note(r["note"].as<std::string>());
  k.set_created_at(r["created_at"].as<std::string>());
  k.set_created_by(r["created_by"].as<std::string>());
  k.set_revoked_at(r["revoked_at"].as<std::string>());
  k.set_revoked_by(r["revoked_by"].as<std::string>());
  k.set_revoke_reason(r["revoke_reason"].as<std::string>());
  return k;
}

std::optional<v1::TrustedKey> KeyById(Tx& tx, const std::string& key_id, bool for_update) {
  pqxx::result r = Pq(tx).exec_params(for_update ? kFindKeyForUpdate : kFindKey, key_id);
  if (r.empty()) return std::nullopt;
  return KeyFromRow(r[0]);
}

}  // namespace

absl::StatusOr<std::vector<v1::TrustedKey>> ListTrustedKeys(Tx& tx, bool include_revoked) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::TrustedKey>> {
    std::vector<v1::TrustedKey> out;
    for (const auto& r : Pq(tx).exec_params(kListKeys, include_revoked)) {
      out.push_back(KeyFromRow(r));
    }
    return out;
  });
}

absl::StatusOr<std::optional<v1::TrustedKey>> FindTrustedKey(Tx& tx, const std::string& key_id,
                                                             bool for_update) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::TrustedKey>> {
    return KeyById(tx, key_id, for_update);
  });
}

absl::StatusOr<v1::TrustedKey> InsertTrustedKey(Tx& tx, const NewTrustedKey& k) {
  return Guard([&]() -> absl::StatusOr<v1::TrustedKey> {
    Pq(tx).exec_params(kInsertKey, k.key_id, k.pem, k.origin, k.note, k.created_by);
    auto stored = KeyById(tx, k.key_id, false);
    if (!stored) return absl::InternalError("trusted key vanished after insert");
    return *std::move(stored);
  });
}

absl::StatusOr<bool> RecordKeyIfAbsent(Tx& tx, const NewTrustedKey& k) {
  return Guard([&]() -> absl::StatusOr<bool> {
    pqxx::result r =
        Pq(tx).exec_params(kRecordKey, k.key_id, k.pem, k.origin, k.note, k.created_by);
    return r.affected_rows() > 0;
  });
}

absl::StatusOr<v1::TrustedKey> RevokeTrustedKey(Tx& tx, const std::string& key_id,
                                                const std::string& revoked_by,
                                                const std::string& reason) {
  return Guard([&]() -> absl::StatusOr<v1::TrustedKey> {
    pqxx::result r = Pq(tx).exec_params(kRevokeKey, key_id, revoked_by, reason);
    auto k = KeyById(tx, key_id, false);
    if (!k) return absl::NotFoundError(absl::StrCat("no trusted key ", key_id));
    if (r.affected_rows() == 0) {
      return absl::FailedPreconditionError(absl::StrCat("key ", key_id, " was already revoked at ",
                                                        k->revoked_at(), " by ", k->revoked_by()));
    }
    return *std::move(k);
  });
}

}  // namespace cub::store
