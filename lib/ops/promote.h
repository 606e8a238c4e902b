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

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "cub/v1/unit.pb.h"
#include "lib/ops/principal.h"
#include "lib/sign/key_ring.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// Besides the above: into an Automatic Stage (its Mode in the workflow as it is now) only the
// engine promotes; a caller is refused, naming the mode and how to switch it. With Queue, gates
// that do not hold record a queued promotion into the target Stage instead of refusing (one per
// base Space and Stage: it replaces another ChangeOrder's, reported in Replaced); the engine
// carries it out later, as the caller, evaluating every gate again. Every promotion that lands
// something is recorded as a Promoted event (Forced and PromotionFailed as they apply) and wakes
// the engine for the ChangeOrder, since the next Stage may now be open.
absl::StatusOr<v1::PromoteResponse> Promote(store::ConnectionPool& db, const Principal& p,
                                            const v1::PromoteRequest& req);

// Who asks for a promotion, for the engine's own calls.
struct PromoteBy {
  bool engine = false;  // cubd's engine: Automatic Stages are its to promote into
  // The user whose queued promotion the engine carries out (empty: the engine's own).
  std::string queued_by;
  // The server's key ring, whose current key signs the record of each Space promoted into
  // (lib/ops/promotion_records.h). Required whenever something lands.
  std::shared_ptr<sign::KeyRing> keys;
};
absl::StatusOr<v1::PromoteResponse> Promote(store::ConnectionPool& db, const Principal& p,
                                            const v1::PromoteRequest& req, const PromoteBy& by);

// Whether `s` is a refusal because gates do not hold (FAILED_PRECONDITION naming each gate and
// Space), rather than any other error: for the engine, a reason to wait, not to retry.
bool IsGateRefusal(const absl::Status& s);
// The gates (with their Spaces) a gate refusal names, one per entry; empty for other statuses.
std::vector<std::string> GateRefusalReasons(const absl::Status& s);

// `cub unit update --upgrade --change-order`, inside UpdateUnit's transaction: moves the change
// into this one Unit, ungated, over the ChangeOrder's range (with req.prior_revisions or the
// ChangeOrder's), marking only this Unit with the start and end Tags. Clones nothing, copies no
// Link, records no PromotionFailure: an error is returned to the caller as it is.
absl::Status UpgradeToChangeOrder(store::Tx& tx, const Principal& p, const v1::Space& space,
                                  const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                                  v1::UpdateUnitResponse* out);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTE_H_
