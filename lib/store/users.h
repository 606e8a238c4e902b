// Users, their groups and their API tokens. Tokens are stored only as SHA-256 hashes.
#ifndef CUB_LIB_STORE_USERS_H_
#define CUB_LIB_STORE_USERS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewUser {
  std::string username;
  std::vector<std::string> groups;
  bool admin = false;
  bool service_account = false;
};

// Every function here returns a Status and never throws: a database error comes back as the
// Status lib/store/errors.h maps it to.

// The user as stored, with their groups. ALREADY_EXISTS when the username is taken.
absl::StatusOr<v1::User> InsertUser(Tx& tx, const NewUser& u);
// Records a token for the user; `token_hash` is the raw SHA-256 digest (32 bytes).
// ALREADY_EXISTS when a token has that hash.
absl::Status InsertToken(Tx& tx, const std::string& user_id, const std::string& token_hash);
// By username.
absl::StatusOr<std::vector<v1::User>> ListUsers(Tx& tx);
// The user holding an unrevoked token with this hash; nullopt when there is none.
absl::StatusOr<std::optional<v1::User>> FindUserByTokenHash(Tx& tx, const std::string& token_hash);
// nullopt when no user has that name.
absl::StatusOr<std::optional<v1::User>> FindUserByName(Tx& tx, const std::string& username);
// nullopt when no user has that ID.
absl::StatusOr<std::optional<v1::User>> FindUserById(Tx& tx, const std::string& user_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_USERS_H_
