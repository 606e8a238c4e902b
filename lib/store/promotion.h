// The reads and writes a promotion is made of, each one statement whatever the number of
// Spaces and Units: a stage of 1,000 Spaces x 10 Units is planned from a handful of queries and
// landed with six multi-row statements (PromotionWrites), not 10,000+ round trips.
#ifndef CUB_LIB_STORE_PROMOTION_H_
#define CUB_LIB_STORE_PROMOTION_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

// A Unit with the ChangeOrder's marks on it.
struct PromotionUnit {
  std::string id;
  std::string space_id;
  std::string slug;
  std::string toolchain_type;
  std::string labels_json;
  std::string annotations_json;
  int64_t head = 0;
  std::vector<std::string> protected_paths;
  std::string change_set_id;  // the open ChangeSet the Unit is in, if any
  std::optional<int64_t> start_mark, end_mark, publish_mark;
};

struct PromotionTags {
  std::string start_tag_id, end_tag_id, publish_tag_id;
};

// Row-locks every Unit of `space_ids` in ID order, as LoadPromotionUnits does with
// `lock_space_ids`: a promotion that plans its targets in batches locks them all first, so
// that it takes its locks in the same order as any other promotion.
absl::Status LockPromotionUnits(Tx& tx, const std::vector<std::string>& space_ids);

// Every Unit of `space_ids` with its marks, by Space and slug. With `lock_space_ids`, the
// Units of those Spaces are row-locked first (in ID order, so that two promotions cannot
// deadlock), which holds their heads still until the transaction ends.
//
// Every function here returns a database error as a Status (lib/store/errors.h), never as an
// exception; after one the transaction is unusable until rolled back to a savepoint.
absl::StatusOr<std::vector<PromotionUnit>> LoadPromotionUnits(
    Tx& tx, const std::vector<std::string>& space_ids,
    const std::vector<std::string>& lock_space_ids, const PromotionTags& tags);

struct PromotionLink {
  std::string id;
  std::string slug;
  std::string from_unit_id;
  std::string from_space_id;
  std::string to_unit_id;
  std::string to_space_id;
  int64_t cursor = 0;
  bool protect = false;
  bool auto_update = false;
};

// The Links of `update_type` whose downstream Unit is in one of `space_ids` (none: empty).
absl::StatusOr<std::vector<PromotionLink>> LoadLinksFrom(Tx& tx,
                                                         const std::vector<std::string>& space_ids,
                                                         const std::string& update_type);

// The Links of `update_type` into Units of `to_space_id` from Units of `from_space_ids`.
absl::StatusOr<std::vector<PromotionLink>> LoadLinksInto(
    Tx& tx, const std::string& to_space_id, const std::vector<std::string>& from_space_ids,
    const std::string& update_type);

// The Units of `space_ids` that `where` (over the Unit schema; empty: all) selects, by ID.
// INVALID_ARGUMENT when `where` does not compile.
absl::StatusOr<std::set<std::string>> UnitsMatching(Tx& tx,
                                                    const std::vector<std::string>& space_ids,
                                                    const std::string& where);

struct RevisionData {
  std::string data;
  std::string data_hash;
  std::string description;
};

// Revisions lo..hi (inclusive) of each Unit asked for, in one query, keyed by (unit, num).
// A revision that does not exist is simply absent.
struct RevisionSpan {
  std::string unit_id;
  int64_t lo = 0, hi = 0;
};
absl::StatusOr<std::map<std::pair<std::string, int64_t>, RevisionData>> LoadRevisionData(
    Tx& tx, const std::vector<RevisionSpan>& spans);

// Everything one promotion writes. New Units' IDs are made by the caller (NewUuid), so their
// revisions, marks and Links can be written in the same batch.
struct PromotionWrites {
  struct Unit {
    std::string id, space_id, slug, toolchain_type, labels_json, annotations_json, upstream_unit_id;
  };
  struct Revision {
    std::string unit_id, space_id;
    int64_t num = 0;
    std::string data, data_hash, author_id, description, upstream_unit_id;
    int64_t upstream_num = 0;
    int64_t restored_from_num = 0;  // a restore: the revision whose data it brings back
    std::string conflicts_json = "[]", validation_errors_json = "[]", change_order_id;
  };
  struct Link {
    std::string space_id, slug, from_unit_id, to_unit_id, update_type;
    int64_t cursor = 0;
  };
  struct Mark {
    std::string tag_id, unit_id;
    int64_t num = 0;
  };
  std::vector<Unit> units;
  std::vector<Revision> revisions;
  std::vector<std::pair<std::string, int64_t>> heads;  // unit -> new head
  std::vector<Link> links;
  std::vector<std::pair<std::string, int64_t>> cursors;  // link -> new merge cursor
  std::vector<Mark> marks;

  bool empty() const;
  void Append(PromotionWrites&& other);
};

// Writes `w` in at most six statements. A constraint violation comes back as a Status, the
// transaction then unusable until the caller rolls back to a savepoint (Tx::Savepoint) and
// retries in smaller batches. The head and cursor updates run with hash and merge joins
// turned off (SET LOCAL); on success both are set back to the values they had, and on
// failure the rollback to the savepoint undoes it.
absl::Status WritePromotion(Tx& tx, const PromotionWrites& w);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_PROMOTION_H_
