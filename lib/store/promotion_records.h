// The signed promotion records (promotion_records, migrations/0018_promotion_records.sql):
// append-only, one row per promotion into a Space, each holding the DSSE envelope cubd signed.
#ifndef CUB_LIB_STORE_PROMOTION_RECORDS_H_
#define CUB_LIB_STORE_PROMOTION_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewPromotionRecord {
  std::string change_order_id;
  std::string change_order;  // "BASE/NAME"
  std::string space_id;
  std::string space_slug;
  std::string stage;
  std::string promoted_by;
  std::string queued_by;
  bool forced = false;
  std::string at;  // RFC 3339, the time the statement names
  std::string envelope;
  std::string statement_digest;
};

// Writes every record in one statement (a promotion into a Stage of 1,000 Spaces is one
// INSERT, not 1,000). Nothing for an empty list.
absl::Status InsertPromotionRecords(Tx& tx, const std::vector<NewPromotionRecord>& records);

// The records of the ChangeOrder `change_order_id`, oldest first; with `space` (an ID or the
// slug the Space had when promoted) only that Space's. `page` continues after a record ID.
absl::StatusOr<std::vector<v1::PromotionRecord>> ListPromotionRecords(
    Tx& tx, const std::string& change_order_id, const std::string& space, const Keyset& page = {});

// What a Unit holds at its head: for naming the revisions a promotion left in the record.
struct UnitHead {
  std::string unit_id;
  std::string space_id;
  std::string slug;
  int64_t revision_num = 0;
  std::string data_hash;  // "" for a Unit with no revision
};

// The heads of the Units `unit_ids` (those that still exist), in one query, by Space and slug.
absl::StatusOr<std::vector<UnitHead>> UnitHeads(Tx& tx, const std::vector<std::string>& unit_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_PROMOTION_RECORDS_H_
