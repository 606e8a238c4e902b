// Use cases on ChangeOrders: naming a change made in a base Space, fixing its scope and range,
// and reading where it has got to.
//
// Creating one fixes, per Unit of the base, where the change starts (the merge cursor of the
// Links that follow the Unit from the Spaces in scope; they must agree) and ends (the head, or
// the revision --end-tag marks), and marks both with the ChangeOrder's Tags NAME-co-start and
// NAME-co-end; NAME-co-publish marks what a Release of the change would bundle. A Unit whose
// start and end coincide is one the change does not change; it is reported in SkippedUnits.
// The governing workflow is copied, so editing it later does not change the rules.
//
// Reading derives ResolvedSpaceIDs (the Spaces where promotion placed the publish Tag) and State
// from those marks at read time; Stage is recorded and only moves forward (AdvanceStage).
#ifndef CUB_LIB_OPS_CHANGE_ORDERS_H_
#define CUB_LIB_OPS_CHANGE_ORDERS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/domain/vocabulary.h"
#include "lib/ops/principal.h"
#include "lib/store/change_orders.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

absl::StatusOr<v1::ChangeOrder> CreateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::CreateChangeOrderRequest& req);
absl::StatusOr<v1::ChangeOrder> GetChangeOrder(store::ConnectionPool& db, const Principal& p,
                                               const v1::GetChangeOrderRequest& req);
// `where` may name derived fields (State, Stage, Completed, ResolvedSpaceIDs ...): it is
// evaluated in memory over each ChangeOrder as read. View Basic answers every field Full does
// but the Space ID lists (InScope, Resolved, Released, RestoredSpaceIDs); it is read without
// them (State from counts taken in SQL, store::ListChangeOrderBasics) unless `where` names one
// of them or NeedsApprovalFrom, which are matched over a full read as in a Full list.
absl::StatusOr<v1::ListChangeOrdersResponse> ListChangeOrders(
    store::ConnectionPool& db, const Principal& p, const v1::ListChangeOrdersRequest& req);
// Description, AbortedReason (set, or cleared only while nothing has been demoted) and
// --refresh-spaces; every update also advances the recorded Stage.
absl::StatusOr<v1::ChangeOrder> UpdateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::UpdateChangeOrderRequest& req);

// A ChangeOrder found for a caller, with its base and its copy of the workflow.
struct ResolvedChangeOrder {
  v1::Space base;
  store::StoredChangeOrder co;
  std::optional<workflow::Workflow> workflow;  // none when created without one
  // co's UpdateType and PriorRevisions, parsed once where it is resolved.
  domain::UpdateType update_type = domain::UpdateType::kUpgradeUnit;
  domain::PriorRevisions prior_revisions = domain::PriorRevisions::kInclude;
};

// "BASE/NAME" (or "NAME" in `default_space`), readable by `p`. `for_update` locks the row.
absl::StatusOr<ResolvedChangeOrder> ResolveChangeOrder(store::Tx& tx, const Principal& p,
                                                       const std::string& ref,
                                                       const std::string& default_space,
                                                       bool for_update);

// The API view, with derived State; `completed` from the recorded Stage.
absl::StatusOr<v1::ChangeOrder> ChangeOrderView(const ResolvedChangeOrder& rco);
// The view GetChangeOrder answers with: ChangeOrderView and the approvals the rollout waits for
// (PendingRequirements, NeedsApprovalFrom), read in `tx`.
absl::StatusOr<v1::ChangeOrder> ChangeOrderViewWithApprovals(store::Tx& tx,
                                                             const ResolvedChangeOrder& rco);

// Re-reads where the change is and records the latest Stage every member of which has taken
// it (or "Completed" once the last Stage also satisfies Final), if that is further along than
// the recorded one. Returns the recorded Stage afterwards.
absl::StatusOr<std::string> AdvanceStage(store::Tx& tx, ResolvedChangeOrder& rco);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_ORDERS_H_
