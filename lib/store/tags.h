// Tags and their marks. A Tag marks at most one revision of each Unit (primary key
// (tag, unit)), which is what later lets "a change reaches a Unit once" hold under
// concurrent promotions.
#ifndef CUB_LIB_STORE_TAGS_H_
#define CUB_LIB_STORE_TAGS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewTag {
  std::string space_id;
  std::string slug;
  std::string description;
  std::map<std::string, std::string> labels;
};

absl::StatusOr<v1::Tag> InsertTag(Tx& tx, const NewTag& t);
std::optional<v1::Tag> FindTag(Tx& tx, const std::string& space_id, const std::string& slug_or_id);
absl::StatusOr<std::vector<v1::Tag>> ListTags(Tx& tx, const std::string& space_id,
                                              std::string_view where);
std::vector<v1::TagMark> ListTagMarks(Tx& tx, const std::string& tag_id);
// The revision the Tag marks on the Unit, if any.
std::optional<int64_t> FindMark(Tx& tx, const std::string& tag_id, const std::string& unit_id);
// Marks `revision_num` of the Unit. Without `move`, a mark already on another revision is
// FAILED_PRECONDITION; marking the same revision again is a no-op.
absl::StatusOr<v1::TagMark> MarkRevision(Tx& tx, const v1::Tag& tag, const v1::Unit& unit,
                                         int64_t revision_num, bool move);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TAGS_H_
