// Tags and their marks. A Tag marks at most one revision of each Unit (primary key
// (tag, unit)), which is what later lets "a change reaches a Unit once" hold under
// concurrent promotions.
//
// Every function returns a Status and never throws: a database error comes back as
// lib/store/errors.h maps it (a violated constraint as ALREADY_EXISTS or FAILED_PRECONDITION,
// a conflict as ABORTED, ...).
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

// ALREADY_EXISTS if the slug is taken in the Space, FAILED_PRECONDITION if there is no Space.
absl::StatusOr<v1::Tag> InsertTag(Tx& tx, const NewTag& t);
// The Tag of the Space by slug or ID; nullopt when there is none.
absl::StatusOr<std::optional<v1::Tag>> FindTag(Tx& tx, const std::string& space_id,
                                               const std::string& slug_or_id);
// The Space's Tags that match `where`, by slug; INVALID_ARGUMENT for a bad expression.
absl::StatusOr<std::vector<v1::Tag>> ListTags(Tx& tx, const std::string& space_id,
                                              std::string_view where);
// The Tag's marks, by Unit slug.
absl::StatusOr<std::vector<v1::TagMark>> ListTagMarks(Tx& tx, const std::string& tag_id);
// The revision the Tag marks on the Unit; nullopt when it marks none.
absl::StatusOr<std::optional<int64_t>> FindMark(Tx& tx, const std::string& tag_id,
                                                const std::string& unit_id);
// FindMark for many Units in one query, with the marked revision's DataHash: unit ID ->
// (revision number, data hash); Units the Tag does not mark are absent.
struct MarkedRevision {
  int64_t revision_num = 0;
  std::string data_hash;
};
absl::StatusOr<std::map<std::string, MarkedRevision>> MarkedRevisions(
    Tx& tx, const std::string& tag_id, const std::vector<std::string>& unit_ids);
// Marks `revision_num` of the Unit. Without `move`, a mark already on another revision is
// FAILED_PRECONDITION; marking the same revision again is a no-op.
absl::StatusOr<v1::TagMark> MarkRevision(Tx& tx, const v1::Tag& tag, const v1::Unit& unit,
                                         int64_t revision_num, bool move);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_TAGS_H_
