#include "lib/ops/change_order_progress.h"

#include <set>
#include <utility>
#include <vector>

#include "lib/ops/change_orders.h"
#include "lib/ops/explain.h"
#include "lib/ops/gates.h"
#include "lib/store/releases.h"
#include "lib/store/transaction.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// Counts per Stage from the Stages' members and the three sets of Spaces, read once for all.
absl::Status FillStages(store::Tx& tx, const ResolvedChangeOrder& rco, const StageNames& members,
                        v1::ChangeOrderProgress& out) {
  if (!rco.workflow) return absl::OkStatus();
  const std::set<std::string> taken(rco.co.resolved_space_ids.begin(),
                                    rco.co.resolved_space_ids.end());
  // Only a Space that has taken the change can have released it.
  std::set<std::string> candidates;
  for (const auto& stage : members) {
    for (const auto& s : stage) {
      if (taken.count(s.space_id)) candidates.insert(s.space_id);
    }
  }
  std::set<std::string> released, healthy;
  if (!candidates.empty()) {
    const std::vector<std::string> ids(candidates.begin(), candidates.end());
    CUB_ASSIGN_OR_RETURN(auto both, store::SpacesReleasingAndHealthy(tx, rco.co.start_tag_id,
                                                                     rco.co.publish_tag_id, ids));
    released = std::move(both.released);
    healthy = std::move(both.healthy);
  }
  for (size_t i = 0; i < members.size(); ++i) {
    v1::StageProgress* sp = out.add_stages();
    sp->set_stage(rco.workflow->stages[i].name);
    sp->set_total(static_cast<int32_t>(members[i].size()));
    int32_t t = 0, r = 0, h = 0;
    for (const auto& s : members[i]) {
      if (!candidates.count(s.space_id)) continue;
      ++t;
      r += released.count(s.space_id) ? 1 : 0;
      h += healthy.count(s.space_id) ? 1 : 0;
    }
    sp->set_taken(t);
    sp->set_released(r);
    sp->set_healthy(h);
  }
  return absl::OkStatus();
}

}  // namespace

std::string ProgressState(const v1::ChangeOrder& view) {
  if (view.completed()) return kProgressCompleted;
  if (!view.aborted_reason().empty()) return kProgressAborted;
  return view.state();
}

bool IsFinalProgressState(const std::string& state) {
  return state == kProgressCompleted || state == kProgressAborted;
}

absl::StatusOr<v1::ChangeOrderProgress> ChangeOrderProgress(
    store::ConnectionPool& db, const Principal& p, const v1::WatchChangeOrderRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrderProgress> {
        CUB_ASSIGN_OR_RETURN(auto rco,
                             ResolveChangeOrder(tx, p, req.change_order(), req.space(), false));
        v1::ChangeOrderProgress out;
        CUB_ASSIGN_OR_RETURN(*out.mutable_change_order(), ChangeOrderView(rco));
        // The Stages' members are read once, for the pending approvals and for the counts.
        CUB_ASSIGN_OR_RETURN(auto members, StageMemberNames(tx, rco));
        CUB_ASSIGN_OR_RETURN(Explanation e, Explain(tx, rco, members));
        FillPendingRequirements(e, *out.mutable_change_order());
        CUB_RETURN_IF_ERROR(FillStages(tx, rco, members, out));
        out.set_state(ProgressState(out.change_order()));
        return out;
      });
}

}  // namespace cub::ops
