// Use cases on freezes (`cub freeze ...`): a freeze stops promotions and publishes into the
// Spaces it covers while it is in force (lib/ops/freeze_gate.h decides which and checks it;
// lib/ops/freeze_schedule.h decides when).
//
// Creating and deleting one needs the admin role on the Space that holds it; reading, the
// viewer role. Both writes are recorded as events (FreezeCreated, FreezeDeleted); deleting one
// wakes the engine for the ChangeOrders that reach the Spaces it covered, since promotions it
// held may now go through. Reads derive InForce, InForceUntil and NextStart at read time.
#ifndef CUB_LIB_OPS_FREEZES_H_
#define CUB_LIB_OPS_FREEZES_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/freeze.pb.h"
#include "lib/ops/freeze_schedule.h"
#include "lib/ops/principal.h"
#include "lib/store/freezes.h"
#include "lib/store/pool.h"

namespace cub::ops {

// Refused (INVALID_ARGUMENT naming the field) and nothing stored: a bad slug, no Reason, a
// malformed schedule (ParseFreezeSchedule), a window whose Until has passed, Stages without a
// ChangeWorkflow or naming a Stage it lacks; NOT_FOUND for a workflow that is not there.
absl::StatusOr<v1::Freeze> CreateFreeze(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateFreezeRequest& req);
absl::StatusOr<v1::Freeze> GetFreeze(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetFreezeRequest& req);
absl::StatusOr<v1::ListFreezesResponse> ListFreezes(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListFreezesRequest& req);
absl::StatusOr<v1::DeleteFreezeResponse> DeleteFreeze(store::ConnectionPool& db, const Principal& p,
                                                      const v1::DeleteFreezeRequest& req);

// Whether the stored freeze is in force at `now`, and until when. A schedule that no longer
// reads back (a time zone gone from the system) is taken as in force until deleted: a freeze
// fails closed.
FreezeState StateOf(const store::StoredFreeze& f, absl::Time now);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_FREEZES_H_
