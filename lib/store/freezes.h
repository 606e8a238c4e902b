// Freeze rows (migrations/0016_freezes.sql). The schedule is stored as given (window bounds,
// or the cron text, duration and zone name) and validated before it gets here; what it means
// is lib/ops/freeze_schedule.h's.
#ifndef CUB_LIB_STORE_FREEZES_H_
#define CUB_LIB_STORE_FREEZES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/store/caller.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct StoredFreeze {
  std::string id;
  std::string space_id;
  std::string space_slug;
  std::string slug;
  std::string reason;
  std::string change_workflow_id;  // empty: every workflow
  std::string change_workflow;     // "SPACE/NAME" of it, or empty
  std::string change_workflow_space_id;
  std::vector<std::string> stages;
  std::string starts_at;  // RFC 3339, or empty
  std::string ends_at;
  std::string cron;
  int64_t duration_seconds = 0;
  std::string time_zone;
  std::string created_by;  // the user's name
  std::string created_at;
};

struct NewFreeze {
  std::string space_id;
  std::string slug;
  std::string reason;
  std::string change_workflow_id;
  std::vector<std::string> stages;
  std::string starts_at;  // RFC 3339, or empty
  std::string ends_at;
  std::string cron;
  int64_t duration_seconds = 0;
  std::string time_zone;
  std::string created_by_id;
  std::string created_by;
};

// Every function here returns a Status and never throws.

// The freeze as stored; ALREADY_EXISTS when the Space has one of that slug.
absl::StatusOr<StoredFreeze> InsertFreeze(Tx& tx, const NewFreeze& f);
// The Space's freeze of that slug or ID; nullopt when it has none.
absl::StatusOr<std::optional<StoredFreeze>> FindFreeze(Tx& tx, const std::string& space_id,
                                                       const std::string& slug_or_id);
// The freezes of `space_id` (empty: of every Space `caller` can see), by Space and slug.
absl::StatusOr<std::vector<StoredFreeze>> ListFreezes(Tx& tx, const Caller& caller,
                                                      const std::string& space_id);
// Every freeze of the server, whoever asks: the ones a promotion or publish checks.
absl::StatusOr<std::vector<StoredFreeze>> AllFreezes(Tx& tx);
absl::Status DeleteFreeze(Tx& tx, const std::string& id);

// The ChangeOrders, not aborted, whose scope includes one of `space_ids` (empty: every one):
// those a freeze over those Spaces may have held.
absl::StatusOr<std::vector<std::string>> ChangeOrdersReaching(
    Tx& tx, const std::vector<std::string>& space_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_FREEZES_H_
