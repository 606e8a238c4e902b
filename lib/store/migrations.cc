#include "lib/store/migrations.h"

#include <map>
#include <pqxx/pqxx>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/errors.h"
#include "lib/store/pq.h"
#include "lib/util/sha256.h"

namespace cub::store {
namespace {

// Arbitrary constant identifying cub's migration lock among other advisory locks.
constexpr int64_t kMigrationLockKey = 0x63756221;  // "cub!"

}  // namespace

absl::StatusOr<std::vector<std::string>> ApplyMigrations(
    const std::string& url, const std::vector<EmbeddedMigration>& migrations) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    std::vector<std::string> applied;
    // The session's advisory lock goes with the connection, should a statement throw.
    pqxx::connection conn(url);
    {
      pqxx::nontransaction nt(conn);
      nt.exec0("SET client_min_messages = warning");
      nt.exec_params("SELECT pg_advisory_lock($1)", kMigrationLockKey);
      nt.exec0(
          "CREATE TABLE IF NOT EXISTS schema_migrations ("
          " version text PRIMARY KEY, checksum text NOT NULL,"
          " applied_at timestamptz NOT NULL DEFAULT now())");
    }
    absl::Status failure;
    for (const auto& m : migrations) {
      std::string checksum = Sha256Hex(m.sql);
      pqxx::work tx(conn);
      pqxx::result r =
          tx.exec_params("SELECT checksum FROM schema_migrations WHERE version = $1", m.name);
      if (!r.empty()) {
        const std::string recorded = r[0]["checksum"].as<std::string>();
        if (recorded != checksum) {
          failure = absl::FailedPreconditionError(absl::StrCat(
              "migration ", m.name, " was changed after it was applied (applied checksum ",
              recorded, ", embedded ", checksum,
              "); add a new migration instead of editing an applied one"));
          break;
        }
        continue;
      }
      tx.exec(m.sql);
      tx.exec_params("INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)", m.name,
                     checksum);
      tx.commit();
      applied.push_back(m.name);
    }
    pqxx::nontransaction nt(conn);
    nt.exec_params("SELECT pg_advisory_unlock($1)", kMigrationLockKey);
    if (!failure.ok()) return failure;
    return applied;
  });
}

absl::Status CheckSchemaCurrent(const std::string& url,
                                const std::vector<EmbeddedMigration>& migrations) {
  return Guard([&]() -> absl::Status {
    pqxx::connection conn(url);
    pqxx::nontransaction tx(conn);
    std::map<std::string, std::string> applied;
    if (!tx.exec1("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")["present"]
             .as<bool>()) {
      return absl::FailedPreconditionError(
          "the database has no cub schema yet: run cubd migrate --database-url OWNER_URL first");
    }
    for (const auto& row : tx.exec("SELECT version, checksum FROM schema_migrations")) {
      applied[row["version"].as<std::string>()] = row["checksum"].as<std::string>();
    }
    std::vector<std::string> pending;
    for (const auto& m : migrations) {
      auto it = applied.find(m.name);
      if (it == applied.end()) {
        pending.push_back(m.name);
      } else if (it->second != Sha256Hex(m.sql)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "migration ", m.name, " was changed after it was applied (applied checksum ",
            it->second, ", embedded ", Sha256Hex(m.sql), ")"));
      }
    }
    if (!pending.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the schema lacks migration(s) ", absl::StrJoin(pending, ", "),
                       ": run cubd migrate --database-url OWNER_URL (as the owner role) first"));
    }
    return absl::OkStatus();
  });
}

}  // namespace cub::store
