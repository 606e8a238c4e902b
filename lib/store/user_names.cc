#include "lib/store/user_names.h"

#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {

absl::StatusOr<std::map<std::string, std::string>> UserNames(
    Tx& tx, const std::vector<std::string>& user_ids) {
  std::map<std::string, std::string> out;
  if (user_ids.empty()) return out;
  return Guard([&]() -> absl::StatusOr<std::map<std::string, std::string>> {
    // Compared as text, so an ID that is not a UUID matches nothing rather than failing.
    pqxx::result r = Pq(tx).exec_params(
        "SELECT id::text AS id, username FROM users WHERE id::text = ANY($1::text[])",
        TextArrayLiteral(user_ids));
    for (const auto& row : r) out[row["id"].as<std::string>()] = row["username"].as<std::string>();
    return out;
  });
}

}  // namespace cub::store
