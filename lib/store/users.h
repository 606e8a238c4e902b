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

absl::StatusOr<v1::User> InsertUser(Tx& tx, const NewUser& u);
// Records a token for the user; `token_hash` is the raw SHA-256 digest (32 bytes).
absl::Status InsertToken(Tx& tx, const std::string& user_id, const std::string& token_hash);
std::vector<v1::User> ListUsers(Tx& tx);
// The user holding an unrevoked token with this hash, or nullopt.
std::optional<v1::User> FindUserByTokenHash(Tx& tx, const std::string& token_hash);
std::optional<v1::User> FindUserByName(Tx& tx, const std::string& username);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_USERS_H_
