// Identities: creating users with their first token, listing them, and resolving a bearer
// token to a Principal.
#ifndef CUB_LIB_OPS_USERS_H_
#define CUB_LIB_OPS_USERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/users.h"

namespace cub::ops {

struct CreatedUser {
  v1::User user;
  std::string token;  // shown once; only its hash is stored
};

// Creates the user and a fresh random token. A service account cannot be an admin.
absl::StatusOr<CreatedUser> CreateUser(store::ConnectionPool& db, const store::NewUser& u);
// Issues another token for an existing user.
absl::StatusOr<std::string> CreateToken(store::ConnectionPool& db, const std::string& username);
absl::StatusOr<std::vector<v1::User>> ListUsers(store::ConnectionPool& db);
// UNAUTHENTICATED unless `token` belongs to a user.
absl::StatusOr<Principal> Authenticate(store::ConnectionPool& db, const std::string& token);

// The user as a caller, as Authenticate makes it (for the engine acting for a user).
Principal PrincipalOf(const v1::User& user);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_USERS_H_
