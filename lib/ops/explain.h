// Why a ChangeOrder goes no further now, and until when: for the next Stage (the first some
// Space of which has not taken the change) and each Stage a promotion is queued into, every
// entry gate that does not hold (EntryGates); for each Stage some Spaces of which took the
// change but have not released it, its ReleasePrerequisites there; and Final once the last
// Stage has it all. `cub changeorder get|explain`, ExplainChangeOrder, the PendingRequirements
// of GetChangeOrder and `cub promotion list` all read this one evaluation.
//
// Findings are shown generically (gate, kind, Space, needs, earliest), so a new kind of gate
// (a freeze, a block, a soak) shows without a change here. A fixed number of queries per
// ChangeOrder, whatever the number of its Spaces: StageMemberNames once, one gate evaluation per
// Stage explained, and the users who could make an attestation hold named in one query.
#ifndef CUB_LIB_OPS_EXPLAIN_H_
#define CUB_LIB_OPS_EXPLAIN_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gate_report.h"
#include "lib/ops/gates.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/queued_promotions.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

inline constexpr std::string_view kPhaseEntry = "Entry";
inline constexpr std::string_view kPhaseRelease = "Release";
inline constexpr std::string_view kPhaseFinal = "Final";

// What holds one Stage, as evaluated (users by ID).
struct ExplainedStage {
  std::string stage;
  std::string phase;  // one of kPhase*
  workflow::StageMode mode = workflow::StageMode::kManual;
  bool next = false;
  std::optional<store::StoredQueuedPromotion> queued;  // Entry only
  GateReport report;                                   // the findings that do not hold
};

struct Explanation {
  absl::Time at;
  std::vector<ExplainedStage> stages;  // in workflow order, Final last
};

// Evaluates `rco` now, in `tx`. Empty when it follows no workflow, is Completed or aborted.
absl::StatusOr<Explanation> Explain(store::Tx& tx, const ResolvedChangeOrder& rco);

// The same over `members`, StageMemberNames(tx, rco) already read by the caller (a caller that
// needs them too reads them once).
absl::StatusOr<Explanation> Explain(store::Tx& tx, const ResolvedChangeOrder& rco,
                                    const StageNames& members);

// The user IDs an explanation names (who could make its attestations hold).
std::vector<std::string> UsersNamedIn(const Explanation& e);

// The API answer, each user named through `names` (store::UserNames' result; an ID it lacks
// shows as "unknown user").
v1::ExplainChangeOrderResponse ExplanationView(const ResolvedChangeOrder& rco, const Explanation& e,
                                               const std::map<std::string, std::string>& names);

// The Entry explanation of `stage`, as the API shows it; nullptr when `view` has none.
const v1::StageExplanation* EntryOf(const v1::ExplainChangeOrderResponse& view,
                                    const std::string& stage);

// GetChangeOrder's PendingRequirements and NeedsApprovalFrom (user IDs, as ever): the
// attestation findings of `e`, each (phase, Stage of the gate, gate, Space) once.
void FillPendingRequirements(const Explanation& e, v1::ChangeOrder& view);

// The RPC: the ChangeOrder named as GetChangeOrder names it, read by a viewer of its base.
absl::StatusOr<v1::ExplainChangeOrderResponse> ExplainChangeOrder(
    store::ConnectionPool& db, const Principal& p, const v1::ExplainChangeOrderRequest& req);

// Explains `rco` in `tx` and names its users (one more query).
absl::StatusOr<v1::ExplainChangeOrderResponse> ExplainView(store::Tx& tx,
                                                           const ResolvedChangeOrder& rco);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_EXPLAIN_H_
