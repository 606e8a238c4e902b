// ChangeSets: rows, which Units they are open on, and closing them (end Tag on every such
// Unit's head in one statement).
#ifndef CUB_LIB_STORE_CHANGE_SETS_H_
#define CUB_LIB_STORE_CHANGE_SETS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewChangeSet {
  std::string space_id;
  std::string slug;
  std::string description;
  std::string start_tag_id;
  std::string end_tag_id;
  std::string created_by;  // user ID
};

// Every function here returns a database error as a Status (lib/store/errors.h), never as an
// exception; after one the transaction is unusable until rolled back to a savepoint.

// Inserts the ChangeSet and returns it as stored. ALREADY_EXISTS when the Space has one of
// that slug.
absl::StatusOr<v1::ChangeSet> InsertChangeSet(Tx& tx, const NewChangeSet& c);
// By slug or ID within the Space; nullopt when there is none.
absl::StatusOr<std::optional<v1::ChangeSet>> FindChangeSet(Tx& tx, const std::string& space_id,
                                                           const std::string& slug_or_id);
// By ID in any Space; nullopt when there is none.
absl::StatusOr<std::optional<v1::ChangeSet>> FindChangeSetByID(Tx& tx, const std::string& id);
// The Space's ChangeSets by slug. INVALID_ARGUMENT when `where` does not compile.
absl::StatusOr<std::vector<v1::ChangeSet>> ListChangeSets(Tx& tx, const std::string& space_id,
                                                          std::string_view where);
// Puts the Unit in the ChangeSet, or (empty change_set_id) takes it out of its ChangeSet.
absl::Status SetUnitChangeSet(Tx& tx, const std::string& unit_id, const std::string& change_set_id);
// Marks every Unit open in the ChangeSet at its head with the end Tag, releases them and
// records who closed it. Returns the number of Units marked.
absl::StatusOr<int64_t> CloseChangeSet(Tx& tx, const v1::ChangeSet& c,
                                       const std::string& closed_by);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CHANGE_SETS_H_
