// Links between Units (downstream "from" Unit takes changes from the upstream "to" Unit),
// and saved Filters. (The clone behind `cub variant create` is in lib/store/variants.h.)
//
// Every function returns a Status and never throws: a database error comes back as
// lib/store/errors.h maps it (a violated constraint as ALREADY_EXISTS or FAILED_PRECONDITION,
// a conflict as ABORTED, ...).
#ifndef CUB_LIB_STORE_LINKS_H_
#define CUB_LIB_STORE_LINKS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/store/caller.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewLink {
  std::string space_id;
  std::string slug;
  std::string from_unit_id;
  std::string to_unit_id;
  std::string update_type;
  bool auto_update = false;
  bool protect = false;
  int64_t upstream_revision_num = 0;
  // Only its upstream_paths and downstream_setters are read (TransformPaths Links); they are
  // stored as the `definition` jsonb in the API's JSON shape.
  v1::Link definition;
};

// ALREADY_EXISTS if the slug is taken in the Space, FAILED_PRECONDITION if a Unit it names
// does not exist.
absl::StatusOr<v1::Link> InsertLink(Tx& tx, const NewLink& l);
// The Link of the Space by slug or ID; nullopt when there is none.
absl::StatusOr<std::optional<v1::Link>> FindLink(Tx& tx, const std::string& space_id,
                                                 const std::string& slug_or_id);
// The Link of `update_type` from `from_unit_id` to `to_unit_id`; nullopt when there is none.
absl::StatusOr<std::optional<v1::Link>> FindLinkBetween(Tx& tx, const std::string& from_unit_id,
                                                        const std::string& to_unit_id,
                                                        const std::string& update_type);
// The Links of `update_type` that `from_unit_id` takes changes through, ordered by slug.
absl::StatusOr<std::vector<v1::Link>> LinksFrom(Tx& tx, const std::string& from_unit_id,
                                                const std::string& update_type);
// Moves a Link's merge cursor.
absl::Status SetLinkCursor(Tx& tx, const std::string& link_id, int64_t upstream_revision_num);
// Moves the cursors of several Links in one statement: (link ID, upstream revision) pairs.
absl::Status SetLinkCursors(Tx& tx, const std::vector<std::pair<std::string, int64_t>>& cursors);
// The TransformPaths, Insert and Upsert Links that `from_unit_id` takes changes through and
// that the where expression over Links selects ("" selects all), ordered by slug.
absl::StatusOr<std::vector<v1::Link>> ResolvedLinksFrom(Tx& tx, const std::string& from_unit_id,
                                                        std::string_view where);
// The AutoUpdate Links (of every type) whose upstream is one of `to_unit_ids`, in one query,
// ordered by downstream Unit and then slug.
absl::StatusOr<std::vector<v1::Link>> AutoUpdateLinksTo(
    Tx& tx, const std::vector<std::string>& to_unit_ids);
// space_id empty: every Space the caller can see.
absl::StatusOr<std::vector<v1::Link>> ListLinks(Tx& tx, const Caller& caller,
                                                const std::string& space_id,
                                                std::string_view where);

struct NewFilter {
  std::string space_id;
  std::string slug;
  std::string from;
  std::string where_field;
};
// ALREADY_EXISTS if the slug is taken in the Space.
absl::StatusOr<v1::Filter> InsertFilter(Tx& tx, const NewFilter& f);
// The Filter of the Space by slug or ID; nullopt when there is none.
absl::StatusOr<std::optional<v1::Filter>> FindFilter(Tx& tx, const std::string& space_id,
                                                     const std::string& slug_or_id);
absl::StatusOr<std::vector<v1::Filter>> ListFilters(Tx& tx, const std::string& space_id,
                                                    std::string_view where);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_LINKS_H_
