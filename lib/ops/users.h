// Identities: creating users with their first token, listing them, and resolving a bearer
// token to a Principal. The tokens themselves are lib/ops/tokens.h.
#ifndef CUB_LIB_OPS_USERS_H_
#define CUB_LIB_OPS_USERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/principal.h"
#include "lib/ops/tokens.h"
#include "lib/store/pool.h"
#include "lib/store/users.h"

namespace cub::ops {

struct CreatedUser {
  v1::User user;
  std::string token;     // shown once; only its hash is stored
  v1::Token token_info;  // its ID, expiry and description
};

// Creates the user and a fresh random token as `spec` asks (lib/ops/tokens.h, with the
// lifetimes of `options`). A service account cannot be an admin.
absl::StatusOr<CreatedUser> CreateUser(store::ConnectionPool& db, const store::NewUser& u,
                                       const TokenSpec& spec = {},
                                       const IdentityOptions& options = {});
absl::StatusOr<std::vector<v1::User>> ListUsers(store::ConnectionPool& db);
// UNAUTHENTICATED unless `token` is an active token of cub's own: AuthenticateToken.
absl::StatusOr<Principal> Authenticate(store::ConnectionPool& db, const std::string& token);

// The user as a caller, as Authenticate makes it (for the engine acting for a user).
Principal PrincipalOf(const v1::User& user);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_USERS_H_
