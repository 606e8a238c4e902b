// Users' names by ID, read together: what an explanation or a listing shows instead of IDs.
#ifndef CUB_LIB_STORE_USER_NAMES_H_
#define CUB_LIB_STORE_USER_NAMES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

// The username of each of `user_ids` that names a user, in one query (none when `user_ids` is
// empty). IDs no user has (or that are not UUIDs) are left out of the map.
absl::StatusOr<std::map<std::string, std::string>> UserNames(
    Tx& tx, const std::vector<std::string>& user_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_USER_NAMES_H_
