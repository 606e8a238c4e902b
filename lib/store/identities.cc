#include "lib/store/identities.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"

namespace cub::store {
namespace {

constexpr char kFindIdentityUser[] =
    "SELECT user_id::text AS user_id FROM user_identities WHERE issuer = $1 AND subject = $2";

constexpr char kInsertIdentity[] =
    "INSERT INTO user_identities (user_id, issuer, subject, email, groups_iat)"
    " VALUES ($1::uuid, $2, $3, $4, NULLIF($5, '')::timestamptz)";

// $1 user, $2 the token's groups (text[]), $3 its iat ('' for none), $4 its email.
// `usable`: whether the token is not older than the one the groups were last taken from.
// `cur` selects (and locks) the identity only when the token is usable and something differs,
// so an unchanged login writes nothing; the three writes then run on it.
constexpr char kSyncIdentity[] =
    "WITH want AS (SELECT DISTINCT unnest($2::text[]) AS g),"
    " cur AS ("
    "  SELECT i.user_id FROM user_identities i"
    "  WHERE i.user_id = $1::uuid"
    "   AND (i.groups_iat IS NULL OR NULLIF($3, '')::timestamptz >= i.groups_iat)"
    "   AND (i.email <> $4 OR NULLIF($3, '')::timestamptz > i.groups_iat"
    "        OR ARRAY(SELECT g.group_name FROM user_groups g WHERE g.user_id = i.user_id"
    "                 ORDER BY 1) IS DISTINCT FROM ARRAY(SELECT g FROM want ORDER BY 1))"
    "  FOR UPDATE OF i),"
    " ins AS ("
    "  INSERT INTO user_groups (user_id, group_name) SELECT c.user_id, w.g FROM cur c, want w"
    "  WHERE NOT EXISTS (SELECT 1 FROM user_groups x WHERE x.user_id = c.user_id"
    "                    AND x.group_name = w.g)"
    "  ON CONFLICT DO NOTHING RETURNING 1),"
    " del AS ("
    "  DELETE FROM user_groups g USING cur c"
    "  WHERE g.user_id = c.user_id AND NOT (g.group_name = ANY($2::text[])) RETURNING 1),"
    " upd AS ("
    "  UPDATE user_identities i SET email = $4,"
    "   groups_iat = greatest(i.groups_iat, NULLIF($3, '')::timestamptz)"
    "  FROM cur c WHERE i.user_id = c.user_id RETURNING 1)"
    " SELECT coalesce(i.groups_iat IS NULL OR NULLIF($3, '')::timestamptz >= i.groups_iat,"
    "                 false) AS usable,"
    " ARRAY(SELECT g.group_name FROM user_groups g WHERE g.user_id = i.user_id) AS before,"
    " (SELECT count(*) FROM ins) + (SELECT count(*) FROM del) + (SELECT count(*) FROM upd)"
    "   AS writes"
    " FROM user_identities i WHERE i.user_id = $1::uuid";

constexpr char kInsertWorkload[] =
    "INSERT INTO workload_identities (user_id, issuer, audience, subject_pattern, claims)"
    " VALUES ($1::uuid, $2, $3, $4, $5::jsonb) RETURNING id::text AS id";

const std::string kWorkloadSelect = absl::StrCat(
    "SELECT w.id::text AS id, w.user_id::text AS user_id, u.username, w.issuer, w.audience,"
    " w.subject_pattern, ",
    MapAsArray("w.claims"), " AS claims, ", Rfc3339("w.created_at"),
    " AS created_at FROM workload_identities w JOIN users u ON u.id = w.user_id"
    " WHERE ($1 = '' OR w.issuer = $1) ORDER BY u.username, w.created_at, w.id");

std::vector<std::string> SortedUnique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

absl::StatusOr<std::optional<std::string>> FindIdentityUser(Tx& tx, const std::string& issuer,
                                                            const std::string& subject) {
  return Guard([&]() -> absl::StatusOr<std::optional<std::string>> {
    pqxx::result r = Pq(tx).exec_params(kFindIdentityUser, issuer, subject);
    if (r.empty()) return std::nullopt;
    return r[0]["user_id"].as<std::string>();
  });
}

absl::Status InsertIdentity(Tx& tx, const NewIdentity& id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(kInsertIdentity, id.user_id, id.issuer, id.subject, id.email, id.issued_at);
    return absl::OkStatus();
  });
}

absl::StatusOr<SyncedGroups> SyncIdentity(Tx& tx, const NewIdentity& id,
                                          const std::vector<std::string>& groups) {
  return Guard([&]() -> absl::StatusOr<SyncedGroups> {
    pqxx::result r = Pq(tx).exec_params(kSyncIdentity, id.user_id, TextArrayLiteral(groups),
                                        id.issued_at, id.email);
    if (r.empty()) {
      return absl::NotFoundError(absl::StrCat("user ", id.user_id, " has no identity"));
    }
    SyncedGroups out;
    out.fresh = r[0]["usable"].as<bool>();
    out.groups = SortedUnique(out.fresh ? groups : ReadTextArray(r[0]["before"]));
    return out;
  });
}

absl::StatusOr<WorkloadIdentity> InsertWorkloadIdentity(Tx& tx, const WorkloadIdentity& w) {
  Json claims = Json::object();
  for (const auto& [k, v] : w.claims) claims[k] = v;
  return Guard([&]() -> absl::StatusOr<WorkloadIdentity> {
    pqxx::row r = Pq(tx).exec_params1(kInsertWorkload, w.user_id, w.issuer, w.audience,
                                      w.subject_pattern, JsonText(claims));
    WorkloadIdentity out = w;
    out.id = r["id"].as<std::string>();
    return out;
  });
}

absl::StatusOr<std::vector<WorkloadIdentity>> ListWorkloadIdentities(Tx& tx,
                                                                     const std::string& issuer) {
  return Guard([&]() -> absl::StatusOr<std::vector<WorkloadIdentity>> {
    std::vector<WorkloadIdentity> out;
    for (const auto& row : Pq(tx).exec_params(kWorkloadSelect, issuer)) {
      WorkloadIdentity w;
      w.id = row["id"].as<std::string>();
      w.user_id = row["user_id"].as<std::string>();
      w.username = row["username"].as<std::string>();
      w.issuer = row["issuer"].as<std::string>();
      w.audience = row["audience"].as<std::string>();
      w.subject_pattern = row["subject_pattern"].as<std::string>();
      w.claims = ReadMap(row["claims"]);
      w.created_at = row["created_at"].as<std::string>();
      out.push_back(std::move(w));
    }
    return out;
  });
}

}  // namespace cub::store
