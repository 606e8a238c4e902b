// Schema migrations: migrations/NNNN_name.sql, embedded into the binary at build time
// (cmake/EmbedMigrations.cmake) and applied in name order.
//
// Each applied migration is recorded with the SHA-256 of its text. Applying takes a
// session-level advisory lock, so several cubd processes starting at once apply each
// migration exactly once; a migration whose text changed after it was applied is refused
// (FAILED_PRECONDITION naming it) rather than silently skipped.
//
// Each function opens its own connection. None throws: a database error (a migration's failing
// statement, a database that cannot be reached: UNAVAILABLE) comes back as the Status
// lib/store/errors.h maps it to.
#ifndef CUB_LIB_STORE_MIGRATIONS_H_
#define CUB_LIB_STORE_MIGRATIONS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::store {

struct EmbeddedMigration {
  const char* name;  // e.g. "0001_foundation.sql"
  const char* sql;
};

// Defined in the generated embedded_migrations.cc.
const std::vector<EmbeddedMigration>& EmbeddedMigrations();

// Applies the pending migrations of `migrations` to the database at `url`; returns the names
// of those it applied (empty when the schema was current).
absl::StatusOr<std::vector<std::string>> ApplyMigrations(
    const std::string& url, const std::vector<EmbeddedMigration>& migrations);

inline absl::StatusOr<std::vector<std::string>> ApplyMigrations(const std::string& url) {
  return ApplyMigrations(url, EmbeddedMigrations());
}

// OK when every one of `migrations` has been applied to the database at `url`, unchanged;
// otherwise FAILED_PRECONDITION naming the pending (or changed) ones. Reads only: for a role
// that may not migrate (`cubd serve` as the runtime role).
absl::Status CheckSchemaCurrent(const std::string& url,
                                const std::vector<EmbeddedMigration>& migrations);
inline absl::Status CheckSchemaCurrent(const std::string& url) {
  return CheckSchemaCurrent(url, EmbeddedMigrations());
}

}  // namespace cub::store

#endif  // CUB_LIB_STORE_MIGRATIONS_H_
