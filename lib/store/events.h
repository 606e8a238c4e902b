// The event log (events): append-only, in the order it was written.
#ifndef CUB_LIB_STORE_EVENTS_H_
#define CUB_LIB_STORE_EVENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/event.pb.h"
#include "lib/store/caller.h"
#include "lib/store/transaction.h"

namespace cub::store {

// The channel AppendEvent notifies (at commit), for followers.
inline constexpr char kEventChannel[] = "cub_events";

// Kinds of the events a blocked change leaves (UpdateChangeOrder Block / Unblock).
inline constexpr char kChangeOrderBlocked[] = "ChangeOrderBlocked";
inline constexpr char kChangeOrderUnblocked[] = "ChangeOrderUnblocked";

struct NewEvent {
  std::string kind;
  std::string space_id;  // may be empty
  std::string space_slug;
  std::string change_order_id;  // may be empty
  std::string change_order;     // "BASE/NAME"
  std::string stage;
  std::string user_id;  // may be empty
  std::string username;
  std::string message;
  std::string details_json = "{}";
};

absl::Status AppendEvent(Tx& tx, const NewEvent& e);
// The same for many, in the order given, in one statement (and one NOTIFY).
absl::Status AppendEvents(Tx& tx, const std::vector<NewEvent>& events);

struct EventFilter {
  std::string space_id;
  std::string change_order_id;
  std::string where;  // over v1::Event's fields (EventSchema)
  int64_t after_id = 0;
  int limit = 100;
};

// Events in Spaces `caller` can see, matching `f`, by ID.
absl::StatusOr<std::vector<v1::Event>> ListEvents(Tx& tx, const Caller& caller,
                                                  const EventFilter& f);

// Whether a ChangeOrder of `base_space_id` created after `change_order_id` has been promoted
// into `stage` (a Promoted event): then the older one is superseded there.
absl::StatusOr<bool> NewerPromotedInto(Tx& tx, const std::string& base_space_id,
                                       const std::string& change_order_id,
                                       const std::string& stage);
// Whether an event of `kind` names `change_order_id` and `stage` already (so the engine records
// a decision such as Superseded once, not at every evaluation).
absl::StatusOr<bool> HasEvent(Tx& tx, const std::string& kind, const std::string& change_order_id,
                              const std::string& stage);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_EVENTS_H_
