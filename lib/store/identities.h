// Identities from OpenID providers: the personal user an issuer's subject is (with the email
// and the groups the provider last gave), and the workload mappings that make a CI provider's
// token a service account (migrations/0019_identities.sql).
//
// Every function here returns a Status and never throws; a database error comes back as the
// Status lib/store/errors.h maps it to.
#ifndef CUB_LIB_STORE_IDENTITIES_H_
#define CUB_LIB_STORE_IDENTITIES_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

// A person as an issuer knows them. `issued_at` is an RFC 3339 time, or empty for a token
// without `iat`.
struct NewIdentity {
  std::string user_id, issuer, subject, email, issued_at;
};

// The user whose identity (issuer, subject) is; nullopt when there is none.
absl::StatusOr<std::optional<std::string>> FindIdentityUser(Tx& tx, const std::string& issuer,
                                                            const std::string& subject);

// Records an identity for a user just created. ALREADY_EXISTS when (issuer, subject) or the
// user already has one.
absl::Status InsertIdentity(Tx& tx, const NewIdentity& identity);

// The outcome of SyncIdentity: the user's groups after it, and whether the token was used
// (false: older than the one the groups were last taken from, so nothing changed).
struct SyncedGroups {
  std::vector<std::string> groups;  // sorted
  bool fresh = false;
};

// Makes the user's groups equal `groups` and its email `identity.email`, unless the token
// (issued at `identity.issued_at`) is older than the last one its groups were taken from: an
// older token cannot bring back a group removed since. A token without `iat` is used only while
// no token with one ever was. One statement; it writes nothing (takes no lock) when the groups
// and email are already so and the token is not newer than the last.
absl::StatusOr<SyncedGroups> SyncIdentity(Tx& tx, const NewIdentity& identity,
                                          const std::vector<std::string>& groups);

// A CI workload's tokens that a service account accepts.
struct WorkloadIdentity {
  std::string id;
  std::string user_id, username;  // the service account
  std::string issuer, audience, subject_pattern;
  std::map<std::string, std::string> claims;  // required claim -> value
  std::string created_at;
};

// Records a mapping. ALREADY_EXISTS never: mappings may overlap (the login refuses a token
// that several match).
absl::StatusOr<WorkloadIdentity> InsertWorkloadIdentity(Tx& tx, const WorkloadIdentity& w);

// The mappings of `issuer` (every issuer's when empty), by username, then creation.
absl::StatusOr<std::vector<WorkloadIdentity>> ListWorkloadIdentities(Tx& tx,
                                                                     const std::string& issuer);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_IDENTITIES_H_
