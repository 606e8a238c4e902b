// Use cases on queued promotions, the read and withdraw side: listing what waits for its gates
// and taking a queued promotion back (`cub promotion list|withdraw`). Queueing one is
// Promote's, with Queue (lib/ops/promote.h); carrying it out is the engine's.
//
// A queued promotion is seen by whoever can read its base Space. Withdrawing one needs the
// editor role on that base, or to be the user who queued it; it leaves a Withdrawn event in the
// same transaction. Withdrawing opens no gate, so the engine is not woken.
#ifndef CUB_LIB_OPS_QUEUED_PROMOTIONS_H_
#define CUB_LIB_OPS_QUEUED_PROMOTIONS_H_

#include "absl/status/statusor.h"
#include "cub/v1/event.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// Space: empty or "*" for every base Space `p` can see. Where is over QueuedPromotion's fields
// (ChangeOrder, BaseSpace, Stage, QueuedBy, QueuedAt, CheckedAt, WaitingFor); a bad one is
// INVALID_ARGUMENT "Where: ...". Each one's Waits and Earliest are derived at read from its
// ChangeOrder's explanation (lib/ops/explain.h), one per ChangeOrder listed.
absl::StatusOr<v1::ListQueuedPromotionsResponse> ListQueuedPromotions(
    store::ConnectionPool& db, const Principal& p, const v1::ListQueuedPromotionsRequest& req);

// Removes ChangeOrder's promotion queued into TargetStage and returns it. NOT_FOUND naming both
// when none is queued; PERMISSION_DENIED naming who may when `p` may not.
absl::StatusOr<v1::WithdrawPromotionResponse> WithdrawPromotion(
    store::ConnectionPool& db, const Principal& p, const v1::WithdrawPromotionRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_QUEUED_PROMOTIONS_H_
