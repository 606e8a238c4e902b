// Where a ChangeOrder stands (ChangeOrder.State), derived at read from what is recorded of it:
// the Spaces in scope where promotion placed the publish Tag, those that released it, and,
// once aborted, those demoted and those that released the restored revisions. Pure, so the
// rules are tested without a database (tests/unit/change_order_state_test.cc).
//
//   New              nowhere beyond its base yet
//   InProgress       in some Spaces in scope beyond the base, not all
//   Resolved         in every Space in scope
//   Released         in every Space in scope, and released by every one with a release Target
//                    (with no Target anywhere, Resolved is as far as it goes)
//   Aborted          aborted, and not yet demoted everywhere beyond the base that took it
//   Restored         aborted and demoted everywhere beyond the base that took it
//   RestoreReleased  restored, and every Space beyond the base that had released the change
//                    has released the restored revisions
#ifndef CUB_LIB_OPS_CHANGE_ORDER_STATE_H_
#define CUB_LIB_OPS_CHANGE_ORDER_STATE_H_

#include <string>
#include <vector>

#include "lib/domain/vocabulary.h"
#include "lib/store/change_orders.h"

namespace cub::ops {

// ResolvedSpaceIDs as the API shows them: the Spaces in scope, in scope order, that the
// publish Tag reached (a Space no longer in scope is left out).
std::vector<std::string> ResolvedInScope(const store::StoredChangeOrder& c);

domain::ChangeOrderState DeriveChangeOrderState(const store::StoredChangeOrder& c);

// The same rules over counts (what a Basic list reads, store::ListChangeOrderBasics) in place
// of the lists: for every `c`, DeriveChangeOrderState(c) equals
// DeriveChangeOrderState(c.aborted_reason, StateCountsOf(c)).
domain::ChangeOrderState DeriveChangeOrderState(const std::string& aborted_reason,
                                                const store::ChangeOrderStateCounts& n);

// The counts of `c`'s lists as the store counts them in SQL (tests compare the two
// derivations with it).
store::ChangeOrderStateCounts StateCountsOf(const store::StoredChangeOrder& c);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_ORDER_STATE_H_
