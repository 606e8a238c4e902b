#include "lib/store/roles.h"

#include <pqxx/pqxx>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/errors.h"
#include "lib/store/pq.h"

namespace cub::store {
namespace {

// The tables that are records: read and insert only, for the runtime (deployments may also be
// updated: their trigger lets only the write-once facts through).
constexpr char kRecordTables[] =
    "ARRAY['revisions', 'releases', 'release_units', 'deployments', 'attestations',"
    " 'attestation_revisions', 'purges', 'events', 'release_scans', 'promotion_records',"
    " 'release_artifacts', 'release_verifications', 'release_held_clusters']";

}  // namespace

absl::Status CheckRuntimeRole(const std::string& url) {
  return Guard([&]() -> absl::Status {
    pqxx::connection conn(url);
    pqxx::nontransaction tx(conn);
    pqxx::row r = tx.exec1(absl::StrCat(
        "SELECT current_user::text AS role, r.rolsuper AS superuser,"
        " r.rolcreaterole AS createrole,"
        " coalesce((SELECT pg_has_role(current_user, c.relowner, 'MEMBER') FROM pg_class c"
        "           WHERE c.oid = to_regclass('revisions')), false) AS owner_member,"
        " coalesce((SELECT pg_get_userbyid(c.relowner)::text FROM pg_class c"
        "           WHERE c.oid = to_regclass('revisions')), '') AS owner,"
        " has_schema_privilege(current_schema(), 'CREATE') AS may_create,"
        " coalesce((SELECT string_agg(t, ', ') FROM unnest(",
        kRecordTables,
        ") t WHERE CASE WHEN to_regclass(t) IS NULL THEN false"
        "   ELSE has_table_privilege(t, CASE WHEN t = 'deployments'"
        "                                    THEN 'DELETE, TRUNCATE, TRIGGER'"
        "                                    ELSE 'UPDATE, DELETE, TRUNCATE, TRIGGER' END) END),"
        " '') AS may_alter,"
        " coalesce((SELECT string_agg(t, ', ') FROM unnest(",
        kRecordTables,
        ") t WHERE CASE WHEN to_regclass(t) IS NULL THEN true"
        "   ELSE NOT has_table_privilege(t, 'SELECT')"
        "     OR (t <> 'purges' AND NOT has_table_privilege(t, 'INSERT')) END), '') AS may_not_use,"
        " coalesce(current_schema()::text, '') AS schema"
        " FROM pg_roles r WHERE r.rolname = current_user"));
    const std::string role = r["role"].as<std::string>();
    std::vector<std::string> wrong;
    if (r["superuser"].as<bool>()) wrong.push_back("it is a superuser");
    if (r["createrole"].as<bool>()) wrong.push_back("it has CREATEROLE");
    if (r["owner_member"].as<bool>()) {
      wrong.push_back(absl::StrCat("it is (or is a member of) ", r["owner"].as<std::string>(),
                                   ", which owns the tables"));
    }
    if (r["may_create"].as<bool>()) {
      wrong.push_back(absl::StrCat("it may CREATE in schema ", r["schema"].as<std::string>()));
    }
    if (const auto alter = r["may_alter"].as<std::string>(); !alter.empty()) {
      wrong.push_back(absl::StrCat("it may UPDATE, DELETE, TRUNCATE or add triggers to ", alter));
    }
    if (!wrong.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database role ", role, " may alter cub's records (", absl::StrJoin(wrong, "; "),
          "): serve as a role that is only a member of ", kRuntimeGroupRole,
          " (see docs/operations.md, \"Database roles\"), and run cubd migrate as the owner"));
    }
    if (const auto unusable = r["may_not_use"].as<std::string>(); !unusable.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database role ", role, " cannot read and write ", unusable,
          ": run cubd migrate as the owner first, and GRANT ", kRuntimeGroupRole, " TO ", role));
    }
    return absl::OkStatus();
  });
}

absl::Status EnsureRuntimeLogin(const std::string& admin_url, const std::string& name) {
  absl::Status s = Guard([&]() -> absl::Status {
    pqxx::connection conn(admin_url);
    pqxx::nontransaction tx(conn);
    tx.exec0("SET client_min_messages = warning");
    if (tx.exec_params("SELECT 1 FROM pg_roles WHERE rolname = $1", name).empty()) {
      try {
        tx.exec0("CREATE ROLE " + tx.quote_name(name) + " LOGIN");
      } catch (const pqxx::sql_error& e) {
        // 42710 duplicate_object, 23505 unique_violation: created meanwhile.
        if (e.sqlstate() != "42710" && e.sqlstate() != "23505") throw;
      }
    }
    tx.exec0(absl::StrCat("GRANT ", kRuntimeGroupRole, " TO ", tx.quote_name(name)));
    return absl::OkStatus();
  });
  if (s.ok()) return s;
  return absl::Status(s.code(),
                      absl::StrCat("creating the database role ", name, ": ", s.message()));
}

namespace {

// The ID of the one deleted Space whose records `space` names (its ID, or a slug they carry).
absl::StatusOr<std::string> DeletedSpaceID(pqxx::transaction_base& tx, const std::string& space) {
  pqxx::result ids = tx.exec_params(
      "WITH known(id, slug) AS ("
      "  SELECT space_id, space_slug FROM releases"
      "  UNION SELECT space_id, space_slug FROM attestations"
      "  UNION SELECT space_id, '' FROM revisions"
      "  UNION SELECT id, slug FROM spaces)"
      " SELECT DISTINCT id::text AS space_id,"
      " EXISTS (SELECT 1 FROM spaces s WHERE s.id = k.id) AS live"
      " FROM known k WHERE id::text = $1 OR slug = $1 ORDER BY 2, 1",
      space);
  if (ids.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no records of a space '", space, "' (give a slug or a space ID)"));
  }
  std::vector<std::string> deleted;
  for (const auto& row : ids) {
    if (row["live"].as<bool>()) {
      return absl::FailedPreconditionError(
          absl::StrCat("space '", space, "' still exists (", row["space_id"].as<std::string>(),
                       "): delete it first; only the records of deleted spaces are purged"));
    }
    deleted.push_back(row["space_id"].as<std::string>());
  }
  if (deleted.size() > 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("records of ", deleted.size(), " deleted spaces carry the slug '", space,
                     "' (", absl::StrJoin(deleted, ", "), "): purge them one at a time by ID"));
  }
  return deleted[0];
}

}  // namespace

absl::StatusOr<PurgeResult> PurgeSpace(const std::string& url, const std::string& space,
                                       const std::string& reason, const std::string& requested_by) {
  absl::StatusOr<PurgeResult> out = Guard([&]() -> absl::StatusOr<PurgeResult> {
    pqxx::connection conn(url);
    pqxx::work tx(conn);
    auto id = DeletedSpaceID(tx, space);
    if (!id.ok()) return id.status();
    pqxx::row r = tx.exec_params1(
        "SELECT j->>'purge_id' AS purge_id, j->>'space_slug' AS space_slug,"
        " (j->'removed')::text AS removed"
        " FROM (SELECT cub_purge_space($1::uuid, $2, $3) AS j) v",
        *id, reason, requested_by);
    tx.commit();
    return PurgeResult{r["purge_id"].as<std::string>(), *id, r["space_slug"].as<std::string>(),
                       r["removed"].as<std::string>()};
  });
  // libpqxx 6 leaves sqlstate() empty for parameterized statements: the message decides.
  // A connection refused for lack of privilege is UNAVAILABLE, and stays so.
  if (out.status().code() == absl::StatusCode::kInternal &&
      absl::StrContains(out.status().message(), "permission denied")) {
    return absl::PermissionDeniedError(absl::StrCat("purge: ", out.status().message(),
                                                    " (purging runs as the owner role that ran"
                                                    " cubd migrate)"));
  }
  return out;
}

}  // namespace cub::store
