// The two database roles cubd works with (docs/operations.md, "Database roles").
//
// The owner runs the migrations and so owns the schema; it is trusted. The runtime role is what
// `cubd serve` connects as: a member of the group role cub_runtime (created by
// migrations/0012), which may read and write the working tables, may only read and insert the
// records, changes a Release only through the state functions, and owns nothing, so it can
// neither run DDL nor drop or disable the triggers that keep the records append-only.
//
// Each function opens its own connection to `url`; thread-safe. None throws: a database error
// (one reaching the database included: UNAVAILABLE) comes back as the Status
// lib/store/errors.h maps it to.
#ifndef CUB_LIB_STORE_ROLES_H_
#define CUB_LIB_STORE_ROLES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::store {

// The group role migrations grant the runtime privileges to.
inline constexpr char kRuntimeGroupRole[] = "cub_runtime";
// The login role the embedded database and the test set-ups serve as.
inline constexpr char kServeLoginRole[] = "cub_serve";

// OK when the role of `url` is fit to serve: not a superuser, not CREATEROLE, no member of the
// role owning the tables, no CREATE on the schema, no UPDATE (deployments excepted), DELETE,
// TRUNCATE or TRIGGER on a record table, and SELECT and INSERT on them. FAILED_PRECONDITION naming
// the role and what is wrong otherwise; UNAVAILABLE when the database cannot be reached.
absl::Status CheckRuntimeRole(const std::string& url);

// As a superuser at `admin_url`: creates the login role `name` if it does not exist and makes
// it a member of cub_runtime (which the migrations must have created). Idempotent.
absl::Status EnsureRuntimeLogin(const std::string& admin_url, const std::string& name);

// What a purge removed.
struct PurgeResult {
  std::string purge_id;
  std::string space_id;
  std::string space_slug;
  std::string removed;  // JSON: {"revisions": N, "releases": N, ...}
};

// Removes every record (revisions, releases with their units and deployments, attestations)
// of a deleted Space, and records the purge in the purges table, in one transaction, through
// the database function cub_purge_space: so it must run as the owner (the runtime role may not
// execute it). `space` is the deleted Space's ID, or a slug its records carry (refused when
// records of several deleted Spaces carry it). Errors: INVALID_ARGUMENT (no reason),
// NOT_FOUND (no records), FAILED_PRECONDITION (the Space still exists, or the slug is
// ambiguous), PERMISSION_DENIED-like failures from the database as FAILED_PRECONDITION/INTERNAL.
absl::StatusOr<PurgeResult> PurgeSpace(const std::string& url, const std::string& space,
                                       const std::string& reason, const std::string& requested_by);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ROLES_H_
