// The block gate: content a blocked ChangeOrder brought (lib/store/blocks.h) does not move into
// a Space that does not already run it, whoever moves it and however: a promotion (by any
// ChangeOrder), an upgrade from upstream, a publish (a rollback and AutoRelease included).
// Nothing passes it, not even Force; only lifting the block does.
//
// Each check is one query over everything the operation would bring, never one per Unit. A
// finding (kind kGateBlock) names the Space, the Unit, the blocked ChangeOrder and its reason,
// and how to lift the block.
#ifndef CUB_LIB_OPS_BLOCK_GATE_H_
#define CUB_LIB_OPS_BLOCK_GATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "cub/v1/space.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gate_report.h"
#include "lib/ops/promotion_plan.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// The gate name of the held findings (a failing one is named by the blocked ChangeOrder,
// "BASE/NAME", as a freeze's finding is by the freeze).
inline constexpr std::string_view kBlockedContentGate = "BlockedContent";

// The findings of the plans of a promotion into `stage` (empty: named Spaces) of `rco`: for
// each Space that would land and each Unit it would write, the Unit's new DataHash and that
// of the upstream revision it merges from. A Unit whose head or latest Release already has
// the new data passes. One failing finding per blocked Unit; one held finding per Space that
// writes Units and has none blocked (evidence: how many Units were checked).
absl::StatusOr<GateReport> PromotionBlockFindings(store::Tx& tx, const ResolvedChangeOrder& rco,
                                                  const std::string& stage,
                                                  const std::vector<SpacePlan>& plans);

// An upgrade of `unit_slug` in `space` to `new_hash`, merged from revision `source_num` of
// `source_unit_id`, refused (FAILED_PRECONDITION) when either DataHash is blocked; it passes
// when the Unit had that data before the upgrade (`prior_hash`) or its latest Release has it.
absl::Status CheckUpgradeBlocks(store::Tx& tx, const v1::Space& space, const std::string& unit_slug,
                                const std::string& new_hash, const std::string& prior_hash,
                                const std::string& source_unit_id, int64_t source_num);

// A publish of `units` in `space`, refused (FAILED_PRECONDITION) when one bundles blocked data
// the Space's latest Release does not already bundle for that Unit.
absl::Status CheckPublishBlocks(store::Tx& tx, const v1::Space& space,
                                const std::vector<v1::ReleaseUnit>& units);

// CheckPublishBlocks for many publishes at once (a Stage's), in one query: the failing
// findings, each naming its Space, with messages opening "unable to publish a release".
struct PublishToCheck {
  const v1::Space* space = nullptr;
  const std::vector<v1::ReleaseUnit>* units = nullptr;
};
absl::StatusOr<GateReport> PublishBlockFindings(store::Tx& tx,
                                                const std::vector<PublishToCheck>& publishes);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_BLOCK_GATE_H_
