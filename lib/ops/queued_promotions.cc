#include "lib/ops/queued_promotions.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/events.h"
#include "lib/ops/explain.h"
#include "lib/ops/where_field.h"
#include "lib/store/engine_work.h"
#include "lib/store/errors.h"
#include "lib/store/events.h"
#include "lib/store/queued_promotions.h"
#include "lib/store/transaction.h"
#include "lib/store/user_names.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// Whether `p` may withdraw `q`: its author may, and so may an editor of its base.
absl::Status MayWithdraw(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                         const store::StoredQueuedPromotion& q) {
  if (q.queued_by_id == p.user_id) return absl::OkStatus();
  absl::Status write = ResolveSpace(tx, p, rco.base.space_id(), Access::kWrite).status();
  if (write.ok() || store::FailedInDatabase(write)) return write;
  if (!absl::IsPermissionDenied(write)) return write;
  return absl::PermissionDeniedError(absl::StrCat(
      "user '", p.username, "' may not withdraw the promotion of change order '",
      q.view.change_order(), "' queued into stage '", q.view.stage(), "': only ",
      q.view.queued_by(), ", who queued it, or an editor of space '", rco.base.slug(), "' may"));
}

store::NewEvent WithdrawnEvent(const Principal& p, const ResolvedChangeOrder& rco,
                               const store::StoredQueuedPromotion& q) {
  store::NewEvent e =
      ChangeOrderEvent(rco, p, "Withdrawn", q.view.stage(),
                       absl::StrCat("withdrew the promotion into stage ", q.view.stage(),
                                    " queued by ", q.view.queued_by(), " at ", q.view.queued_at()));
  Json details = Json::object();
  details["QueuedBy"] = q.view.queued_by();
  details["QueuedAt"] = q.view.queued_at();
  e.details_json = JsonText(details);
  return e;
}

// What each queued promotion waits for now, from its ChangeOrder's explanation: one per
// ChangeOrder listed, the users of all of them named in one query. One whose ChangeOrder
// cannot be read keeps only the reasons the engine stored.
absl::Status ExplainQueued(store::Tx& tx, const Principal& p,
                           v1::ListQueuedPromotionsResponse& out) {
  std::map<std::string, std::pair<ResolvedChangeOrder, Explanation>> explained;  // by ID
  std::set<std::string> users;
  for (const auto& q : out.queued_promotions()) {
    if (explained.count(q.change_order_id())) continue;
    auto rco = ResolveChangeOrder(tx, p, q.change_order(), "", false);
    if (!rco.ok()) {
      if (store::FailedInDatabase(rco.status())) return rco.status();
      continue;
    }
    CUB_ASSIGN_OR_RETURN(Explanation e, Explain(tx, *rco));
    for (auto& u : UsersNamedIn(e)) users.insert(std::move(u));
    explained.emplace(q.change_order_id(), std::make_pair(*std::move(rco), std::move(e)));
  }
  CUB_ASSIGN_OR_RETURN(auto names, store::UserNames(tx, {users.begin(), users.end()}));
  std::map<std::string, v1::ExplainChangeOrderResponse> views;
  for (const auto& [id, re] : explained) views[id] = ExplanationView(re.first, re.second, names);
  for (auto& q : *out.mutable_queued_promotions()) {
    auto it = views.find(q.change_order_id());
    if (it == views.end()) continue;
    // No explanation of its Stage (no workflow, a Stage it does not have, Completed): the
    // stored reasons are all there is to show.
    const v1::StageExplanation* stage = EntryOf(it->second, q.stage());
    if (stage == nullptr) continue;
    q.set_explained(true);
    *q.mutable_waits() = stage->waits();
    q.set_earliest(stage->earliest());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ListQueuedPromotionsResponse> ListQueuedPromotions(
    store::ConnectionPool& db, const Principal& p, const v1::ListQueuedPromotionsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListQueuedPromotionsResponse> {
        v1::ListQueuedPromotionsResponse out;
        std::string space_id;
        if (!req.space().empty() && req.space() != "*") {
          CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
          space_id = space.space_id();
        }
        auto listed = store::ListQueuedPromotions(tx, ToCaller(p), space_id, req.where());
        if (!listed.ok()) return NameWhereField(listed.status(), "Where");
        for (auto& q : *listed) *out.add_queued_promotions() = std::move(q.view);
        CUB_RETURN_IF_ERROR(ExplainQueued(tx, p, out));
        return out;
      });
}

absl::StatusOr<v1::WithdrawPromotionResponse> WithdrawPromotion(
    store::ConnectionPool& db, const Principal& p, const v1::WithdrawPromotionRequest& req) {
  if (req.target_stage().empty()) {
    return absl::InvalidArgumentError(
        "TargetStage is required: the Stage the promotion was queued into");
  }
  return store::InTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::WithdrawPromotionResponse> {
        v1::WithdrawPromotionResponse out;
        CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, p, req.change_order(), "", false));
        const std::string name = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
        // Locks the slot, so a concurrent queue or the engine carrying it out is ordered with us.
        CUB_ASSIGN_OR_RETURN(
            auto q, store::FindQueuedPromotion(tx, rco.base.space_id(), req.target_stage()));
        if (!q || q->view.change_order_id() != rco.co.id) {
          return absl::NotFoundError(absl::StrCat(
              "no promotion of change order '", name, "' into stage '", req.target_stage(),
              "' is queued",
              q ? absl::StrCat(" (change order '", q->view.change_order(), "' is queued there)")
                : ""));
        }
        CUB_RETURN_IF_ERROR(MayWithdraw(tx, p, rco, *q));
        CUB_ASSIGN_OR_RETURN(bool deleted,
                             store::DeleteQueuedPromotion(tx, rco.co.id, q->view.stage()));
        if (!deleted) return absl::InternalError("queued promotion vanished while locked");
        CUB_RETURN_IF_ERROR(store::AppendEvent(tx, WithdrawnEvent(p, rco, *q)));
        // The engine leaves a Stage with a person's queued promotion to it; now it may not.
        CUB_RETURN_IF_ERROR(store::Wake(tx, {rco.co.id}));
        *out.mutable_withdrawn() = q->view;
        return out;
      });
}

}  // namespace cub::ops
