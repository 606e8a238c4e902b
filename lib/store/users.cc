#include "lib/store/users.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kUserColumns = absl::StrCat(
    "u.id AS user_id, u.username, u.admin, u.service_account, ", Rfc3339("u.created_at"),
    " AS created_at, ARRAY(SELECT g.group_name FROM user_groups g WHERE g.user_id = u.id"
    " ORDER BY 1) AS groups");

v1::User UserFromRow(const pqxx::row& r) {
  v1::User u;
  u.set_user_id(r["user_id"].as<std::string>());
  u.set_username(r["username"].as<std::string>());
  u.set_admin(r["admin"].as<bool>());
  u.set_service_account(r["service_account"].as<bool>());
  u.set_created_at(r["created_at"].as<std::string>());
  for (auto& g : ReadTextArray(r["groups"])) u.add_groups(g);
  return u;
}

std::optional<v1::User> UserByName(Tx& tx, const std::string& username) {
  pqxx::result r = Pq(tx).exec_params(
      absl::StrCat("SELECT ", kUserColumns, " FROM users u WHERE u.username = $1"), username);
  if (r.empty()) return std::nullopt;
  return UserFromRow(r[0]);
}

}  // namespace

absl::StatusOr<v1::User> InsertUser(Tx& tx, const NewUser& nu) {
  return Guard([&]() -> absl::StatusOr<v1::User> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO users (username, admin, service_account) VALUES ($1, $2, $3)"
        " RETURNING id::text AS id",
        nu.username, nu.admin, nu.service_account);
    std::string id = r["id"].as<std::string>();
    Pq(tx).exec_params(
        "INSERT INTO user_groups (user_id, group_name) SELECT $1::uuid, unnest($2::text[]) "
        "ON CONFLICT DO NOTHING",
        id, TextArrayLiteral(nu.groups));
    auto u = UserByName(tx, nu.username);
    if (!u) return absl::InternalError("user vanished after insert");
    return *std::move(u);
  });
}

absl::StatusOr<std::vector<v1::User>> ListUsers(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::User>> {
    std::vector<v1::User> out;
    for (const auto& r :
         Pq(tx).exec(absl::StrCat("SELECT ", kUserColumns, " FROM users u ORDER BY u.username"))) {
      out.push_back(UserFromRow(r));
    }
    return out;
  });
}

absl::StatusOr<std::optional<v1::User>> FindUserByName(Tx& tx, const std::string& username) {
  return Guard(
      [&]() -> absl::StatusOr<std::optional<v1::User>> { return UserByName(tx, username); });
}

absl::StatusOr<std::optional<v1::User>> FindUserById(Tx& tx, const std::string& user_id) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::User>> {
    static const std::string kById =
        absl::StrCat("SELECT ", kUserColumns, " FROM users u WHERE u.id = $1::uuid");
    pqxx::result r = ExecPrepared(tx, kById, user_id);
    if (r.empty()) return std::nullopt;
    return UserFromRow(r[0]);
  });
}

}  // namespace cub::store
