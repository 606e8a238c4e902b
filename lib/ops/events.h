// Reading the event log (`cub event list [--follow]`): what the promotion engine and every
// promotion, publish and queue decision left, oldest first. Events are appended by the
// operations that cause them (store::AppendEvent) and never changed.
//
// A caller sees the events of the Spaces it can read; an event that names no Space only an
// admin sees. Following is polling with AfterID: IDs only grow, so the last ID seen is a cursor.
#ifndef CUB_LIB_OPS_EVENTS_H_
#define CUB_LIB_OPS_EVENTS_H_

#include <string>

#include "absl/status/statusor.h"
#include "cub/v1/event.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/principal.h"
#include "lib/store/events.h"
#include "lib/store/pool.h"

namespace cub::ops {

inline constexpr int kDefaultEventLimit = 100;
inline constexpr int kMaxEventLimit = 1000;

// Space (readable; empty or "*": all), ChangeOrder ("BASE/NAME", or NAME in Space; readable),
// Where over Event's fields (ID, At, Kind, SpaceID, Space, ChangeOrder, Stage, User, Message),
// AfterID (only larger IDs) and Limit (0: 100; 1 to 1000, else INVALID_ARGUMENT naming Limit).
absl::StatusOr<v1::ListEventsResponse> ListEvents(store::ConnectionPool& db, const Principal& p,
                                                  const v1::ListEventsRequest& req);

// An event of `kind` about `rco`, in its base Space, asked for by `p`, to append.
store::NewEvent ChangeOrderEvent(const ResolvedChangeOrder& rco, const Principal& p,
                                 const std::string& kind, const std::string& stage,
                                 std::string message);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_EVENTS_H_
