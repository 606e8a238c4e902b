// One snapshot of a ChangeOrder's progress, for `cub changeorder watch`: the ChangeOrder as
// GetChangeOrder shows it, and per Stage of its workflow how many of the Stage's Spaces have
// taken, released and are healthy with the change.
//
// "Released" and "healthy" are read as the Released and Healthy gates read them
// (store::SpacesReleasing): a Release carries the change; the Space's latest Release carries it
// and is reported Synced and Healthy with no operation Running or Failed. A snapshot costs a
// fixed number of queries (one per Stage for its members, two for every Space's releases),
// whatever the number of Spaces.
#ifndef CUB_LIB_OPS_CHANGE_ORDER_PROGRESS_H_
#define CUB_LIB_OPS_CHANGE_ORDER_PROGRESS_H_

#include <string>

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// The snapshot's State values that end a watch.
inline constexpr char kProgressCompleted[] = "Completed";
inline constexpr char kProgressAborted[] = "Aborted";

// The snapshot now, in one read transaction. The ChangeOrder is found and access checked
// exactly as GetChangeOrder does, so a caller who may not read it gets the same error.
absl::StatusOr<v1::ChangeOrderProgress> ChangeOrderProgress(store::ConnectionPool& db,
                                                            const Principal& p,
                                                            const v1::WatchChangeOrderRequest& req);

// Completed when the recorded Stage is Completed, Aborted when the ChangeOrder was aborted
// (also once demoted: Restored and RestoreReleased are Aborted here), else its State.
std::string ProgressState(const v1::ChangeOrder& view);

// Whether a watch ends after a snapshot of `state`.
bool IsFinalProgressState(const std::string& state);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_ORDER_PROGRESS_H_
