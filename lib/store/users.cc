#include "lib/store/users.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kUserColumns = absl::StrCat(
    "u.id, u.username, u.admin, u.service_account, ", Rfc3339("u.created_at"),
    ", ARRAY(SELECT g.group_name FROM user_groups g WHERE g.user_id = u.id ORDER BY 1)");

v1::User ReadUser(const pqxx::row& r) {
  v1::User u;
  u.set_user_id(r[0].as<std::string>());
  u.set_username(r[1].as<std::string>());
  u.set_admin(r[2].as<bool>());
  u.set_service_account(r[3].as<bool>());
  u.set_created_at(r[4].as<std::string>());
  for (auto& g : ReadTextArray(r[5])) u.add_groups(g);
  return u;
}

}  // namespace

absl::StatusOr<v1::User> InsertUser(Tx& tx, const NewUser& nu) {
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO users (username, admin, service_account) VALUES ($1, $2, $3) RETURNING id",
      nu.username, nu.admin, nu.service_account);
  std::string id = r[0].as<std::string>();
  Pq(tx).exec_params(
      "INSERT INTO user_groups (user_id, group_name) SELECT $1::uuid, unnest($2::text[]) "
      "ON CONFLICT DO NOTHING",
      id, TextArrayLiteral(nu.groups));
  auto u = FindUserByName(tx, nu.username);
  if (!u) return absl::InternalError("user vanished after insert");
  return *u;
}

absl::Status InsertToken(Tx& tx, const std::string& user_id, const std::string& token_hash) {
  Pq(tx).exec_params("INSERT INTO tokens (user_id, token_hash) VALUES ($1::uuid, $2)", user_id,
                     pqxx::binarystring(token_hash));
  return absl::OkStatus();
}

std::vector<v1::User> ListUsers(Tx& tx) {
  std::vector<v1::User> out;
  for (const auto& r :
       Pq(tx).exec(absl::StrCat("SELECT ", kUserColumns, " FROM users u ORDER BY u.username"))) {
    out.push_back(ReadUser(r));
  }
  return out;
}

std::optional<v1::User> FindUserByTokenHash(Tx& tx, const std::string& token_hash) {
  pqxx::result r =
      Pq(tx).exec_params(absl::StrCat("SELECT ", kUserColumns,
                                      " FROM tokens t JOIN users u ON u.id = t.user_id"
                                      " WHERE t.token_hash = $1 AND t.revoked_at IS NULL"),
                         pqxx::binarystring(token_hash));
  if (r.empty()) return std::nullopt;
  return ReadUser(r[0]);
}

std::optional<v1::User> FindUserByName(Tx& tx, const std::string& username) {
  pqxx::result r = Pq(tx).exec_params(
      absl::StrCat("SELECT ", kUserColumns, " FROM users u WHERE u.username = $1"), username);
  if (r.empty()) return std::nullopt;
  return ReadUser(r[0]);
}

}  // namespace cub::store
