#include "lib/store/roles.h"

#include <pqxx/pqxx>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/errors.h"

namespace cub::store {
namespace {

// The tables that are records: read and insert only, for the runtime (deployments may also be
// updated: their trigger lets only the write-once facts through).
constexpr char kRecordTables[] =
    "ARRAY['revisions', 'releases', 'release_units', 'deployments', 'attestations',"
    " 'attestation_revisions', 'purges']";

}  // namespace

absl::Status CheckRuntimeRole(const std::string& url) {
  try {
    pqxx::connection conn(url);
    pqxx::nontransaction tx(conn);
    pqxx::row r = tx.exec1(absl::StrCat(
        "SELECT current_user::text, r.rolsuper, r.rolcreaterole,"
        " coalesce((SELECT pg_has_role(current_user, c.relowner, 'MEMBER') FROM pg_class c"
        "           WHERE c.oid = to_regclass('revisions')), false),"
        " coalesce((SELECT pg_get_userbyid(c.relowner)::text FROM pg_class c"
        "           WHERE c.oid = to_regclass('revisions')), ''),"
        " has_schema_privilege(current_schema(), 'CREATE'),"
        " coalesce((SELECT string_agg(t, ', ') FROM unnest(",
        kRecordTables,
        ") t WHERE CASE WHEN to_regclass(t) IS NULL THEN false"
        "   ELSE has_table_privilege(t, CASE WHEN t = 'deployments' THEN 'DELETE, TRUNCATE, "
        "TRIGGER'"
        "                                    ELSE 'UPDATE, DELETE, TRUNCATE, TRIGGER' END) END), "
        "''),"
        " coalesce((SELECT string_agg(t, ', ') FROM unnest(",
        kRecordTables,
        ") t WHERE CASE WHEN to_regclass(t) IS NULL THEN true"
        "   ELSE NOT has_table_privilege(t, 'SELECT')"
        "     OR (t <> 'purges' AND NOT has_table_privilege(t, 'INSERT')) END), ''),"
        " coalesce(current_schema()::text, '')"
        " FROM pg_roles r WHERE r.rolname = current_user"));
    const std::string role = r[0].as<std::string>();
    std::vector<std::string> wrong;
    if (r[1].as<bool>()) wrong.push_back("it is a superuser");
    if (r[2].as<bool>()) wrong.push_back("it has CREATEROLE");
    if (r[3].as<bool>()) {
      wrong.push_back(absl::StrCat("it is (or is a member of) ", r[4].as<std::string>(),
                                   ", which owns the tables"));
    }
    if (r[5].as<bool>()) {
      wrong.push_back(absl::StrCat("it may CREATE in schema ", r[8].as<std::string>()));
    }
    if (!r[6].as<std::string>().empty()) {
      wrong.push_back(absl::StrCat("it may UPDATE, DELETE, TRUNCATE or add triggers to ",
                                   r[6].as<std::string>()));
    }
    if (!wrong.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database role ", role, " may alter cub's records (", absl::StrJoin(wrong, "; "),
          "): serve as a role that is only a member of ", kRuntimeGroupRole,
          " (see docs/operations.md, \"Database roles\"), and run cubd migrate as the owner"));
    }
    if (!r[7].as<std::string>().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database role ", role, " cannot read and write ", r[7].as<std::string>(),
          ": run cubd migrate as the owner first, and GRANT ", kRuntimeGroupRole, " TO ", role));
    }
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return StatusFromException(e);
  }
}

absl::Status EnsureRuntimeLogin(const std::string& admin_url, const std::string& name) {
  try {
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
  } catch (const std::exception& e) {
    return absl::Status(StatusFromException(e).code(),
                        absl::StrCat("creating the database role ", name, ": ", e.what()));
  }
}

absl::StatusOr<PurgeResult> PurgeSpace(const std::string& url, const std::string& space,
                                       const std::string& reason, const std::string& requested_by) {
  try {
    pqxx::connection conn(url);
    pqxx::work tx(conn);
    // The Space's ID: given, or the one deleted Space whose records carry the slug.
    pqxx::result ids = tx.exec_params(
        "WITH known(id, slug) AS ("
        "  SELECT space_id, space_slug FROM releases"
        "  UNION SELECT space_id, space_slug FROM attestations"
        "  UNION SELECT space_id, '' FROM revisions"
        "  UNION SELECT id, slug FROM spaces)"
        " SELECT DISTINCT id::text, EXISTS (SELECT 1 FROM spaces s WHERE s.id = k.id)"
        " FROM known k WHERE id::text = $1 OR slug = $1 ORDER BY 2, 1",
        space);
    if (ids.empty()) {
      return absl::NotFoundError(
          absl::StrCat("no records of a space '", space, "' (give a slug or a space ID)"));
    }
    std::vector<std::string> deleted;
    for (const auto& row : ids) {
      if (row[1].as<bool>()) {
        return absl::FailedPreconditionError(
            absl::StrCat("space '", space, "' still exists (", row[0].as<std::string>(),
                         "): delete it first; only the records of deleted spaces are purged"));
      }
      deleted.push_back(row[0].as<std::string>());
    }
    if (deleted.size() > 1) {
      return absl::FailedPreconditionError(
          absl::StrCat("records of ", deleted.size(), " deleted spaces carry the slug '", space,
                       "' (", absl::StrJoin(deleted, ", "), "): purge them one at a time by ID"));
    }
    pqxx::row r = tx.exec_params1("SELECT cub_purge_space($1::uuid, $2, $3)::text", deleted[0],
                                  reason, requested_by);
    pqxx::row parts = tx.exec_params1(
        "SELECT j->>'purge_id', j->>'space_slug', (j->'removed')::text FROM (SELECT $1::jsonb) "
        "v(j)",
        r[0].as<std::string>());
    tx.commit();
    return PurgeResult{parts[0].as<std::string>(), deleted[0], parts[1].as<std::string>(),
                       parts[2].as<std::string>()};
  } catch (const pqxx::sql_error& e) {
    // libpqxx 6 leaves sqlstate() empty for parameterized statements: the message decides.
    if (e.sqlstate() == "42501" || absl::StrContains(e.what(), "permission denied")) {
      return absl::PermissionDeniedError(absl::StrCat(
          "purge: ", e.what(), " (purging runs as the owner role that ran cubd migrate)"));
    }
    return StatusFromException(e);
  } catch (const std::exception& e) {
    return StatusFromException(e);
  }
}

}  // namespace cub::store
