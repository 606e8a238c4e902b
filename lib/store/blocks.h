// Blocked changes (migration 0017): which ChangeOrders are blocked, the content each brought,
// and the one lookup promotions, upgrades and publishes make against it.
//
// The content a blocked ChangeOrder brought is recorded once, when it is blocked: the end
// DataHash of each Unit it changed in every Space it reached. Content is matched by DataHash
// alone, so the same change carried again (by another ChangeOrder, a plain upgrade, a publish
// of a rollback) is recognized wherever it comes from.
//
// Every function returns a database error as a Status, never as an exception.
#ifndef CUB_LIB_STORE_BLOCKS_H_
#define CUB_LIB_STORE_BLOCKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/transaction.h"

namespace cub::store {

// Marks the ChangeOrder blocked by `user_id` now and records the content it brought: for each
// Unit its end Tag marks (in any Space) whose end revision's DataHash differs from its start
// revision's, that DataHash. One statement for the content, whatever the number of Units.
// Returns how many Units' content was recorded. Blocking again records again (the set is
// replaced), so content brought since is included.
absl::StatusOr<int64_t> BlockChangeOrder(Tx& tx, const std::string& change_order_id,
                                         const std::string& user_id,
                                         const std::string& start_tag_id,
                                         const std::string& end_tag_id);

// Lifts the block and forgets the content recorded with it.
absl::Status UnblockChangeOrder(Tx& tx, const std::string& change_order_id);

// The ChangeOrders, of any base, neither aborted nor completed: those whose promotions a
// lifted block may let through (their content is matched by DataHash, wherever it was made).
absl::StatusOr<std::vector<std::string>> OpenChangeOrderIds(Tx& tx);

// One Unit's content that a promotion, upgrade or publish would bring into a Space.
struct PlannedContent {
  std::string space_id;
  std::string unit_slug;
  std::string data_hash;  // the data the Unit would have
  // The upstream revision it merges from (a promotion or upgrade); empty for a publish.
  std::string source_unit_id;
  int64_t source_num = 0;
};

// A planned content that a blocked ChangeOrder's recorded content matches.
struct BlockedHit {
  size_t index = 0;         // into the planned list
  std::string data_hash;    // the blocked hash matched
  bool via_source = false;  // matched by the upstream revision's DataHash, not the new data's
  std::string change_order_id;
  std::string change_order;  // "BASE/NAME"
  std::string base_slug, slug;
  std::string reason;  // its AbortedReason
};

// Which of `planned` bring blocked content, in one query: the new DataHash, or the upstream
// revision's, is recorded for a blocked ChangeOrder, and the Space does not already run that
// Unit with that data: its latest Release bundles the Unit with the new DataHash or, with
// `head_runs`, the Unit's current head revision has it. At most one hit per planned entry (the
// oldest blocked ChangeOrder), in the order of `planned`.
absl::StatusOr<std::vector<BlockedHit>> FindBlockedContent(
    Tx& tx, const std::vector<PlannedContent>& planned, bool head_runs);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_BLOCKS_H_
