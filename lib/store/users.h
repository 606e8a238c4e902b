// Users and their groups. Their API tokens are in lib/store/tokens.h.
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
// By username.
absl::StatusOr<std::vector<v1::User>> ListUsers(Tx& tx);
// nullopt when no user has that name.
absl::StatusOr<std::optional<v1::User>> FindUserByName(Tx& tx, const std::string& username);
// nullopt when no user has that ID.
absl::StatusOr<std::optional<v1::User>> FindUserById(Tx& tx, const std::string& user_id);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_USERS_H_
