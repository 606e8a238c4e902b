// Promoting a ChangeOrder: `cub variant promote --change-order`.
//
// A promotion targets a Stage (by default the first one the change has not reached) or named
// Spaces. The gates of every Stage up to the target are evaluated once, over the whole
// membership of the Stage before each (the first Stage's over the base); a refusal names each
// prerequisite and the Space that blocks it and records nothing. --force passes gates that do
// not hold, with a reason, and is recorded in PromotionOverrides.
//
// Per target Space, against the Space it takes the change from (the same plan for every one):
//   - Units the change carries that the target lacks are cloned at the change's start and the
//     change replayed into them, with a Link back;
//   - Units behind are upgraded over the ChangeOrder's range only, after merging (Include, All),
//     skipping (Skip) or refusing over (Error) what they had not merged before the start;
//   - a Unit already carrying the end Tag is passed over: a ChangeOrder reaches a Unit once;
//   - every Unit is marked with the start, end and publish Tags.
// Each upstream revision is parsed and diffed once for all targets. Spaces that fail are set
// aside and reported (PromotionFailures) while the others land, in six set-based statements;
// should a statement fail, each Space is retried under its own savepoint. The ChangeOrder's row
// lock serializes promotions of one ChangeOrder, across cubd processes too, so a rerun (or a
// concurrent promotion) passes over what already landed.
#ifndef CUB_LIB_OPS_PROMOTE_H_
#define CUB_LIB_OPS_PROMOTE_H_

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "cub/v1/unit.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

absl::StatusOr<v1::PromoteResponse> Promote(store::ConnectionPool& db, const Principal& p,
                                            const v1::PromoteRequest& req);

// `cub unit update --upgrade --change-order`, inside UpdateUnit's transaction: moves the change
// into this one Unit, ungated, over the ChangeOrder's range (with req.prior_revisions or the
// ChangeOrder's), marking only this Unit with the start and end Tags. Clones nothing, copies no
// Link, records no PromotionFailure: an error is returned to the caller as it is.
absl::Status UpgradeToChangeOrder(store::Tx& tx, const Principal& p, const v1::Space& space,
                                  const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                                  v1::UpdateUnitResponse* out);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTE_H_
