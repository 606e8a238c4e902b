#include "lib/ops/change_order_block.h"

#include "absl/strings/str_cat.h"
#include "lib/ops/events.h"
#include "lib/store/blocks.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

absl::Status CheckBlockRequest(const ResolvedChangeOrder& rco,
                               const v1::UpdateChangeOrderRequest& req) {
  const auto& co = rco.co;
  const bool blocked = !co.blocked_at.empty();
  if (req.block() && req.unblock()) {
    return absl::InvalidArgumentError("Block and Unblock exclude each other: give one");
  }
  if (req.block()) {
    const std::string reason = req.has_aborted_reason() ? req.aborted_reason() : co.aborted_reason;
    if (reason.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Block needs AbortedReason: change order '", co.slug,
                       "' is not aborted, and a change order is blocked as it is aborted"));
    }
    return absl::OkStatus();
  }
  if (req.unblock() && !blocked) {
    return absl::FailedPreconditionError(
        absl::StrCat("Unblock: change order '", co.slug, "' is not blocked"));
  }
  if (blocked && !req.unblock() && req.has_aborted_reason() && req.aborted_reason().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("AbortedReason: change order '", co.slug,
                     "' is blocked, so its abort cannot be cleared; unblock it first"));
  }
  return absl::OkStatus();
}

absl::Status ApplyBlockRequest(store::Tx& tx, const Principal& p, const ResolvedChangeOrder& rco,
                               const v1::UpdateChangeOrderRequest& req) {
  const auto& co = rco.co;
  if (req.block()) {
    CUB_ASSIGN_OR_RETURN(int64_t units, store::BlockChangeOrder(tx, co.id, p.user_id,
                                                                co.start_tag_id, co.end_tag_id));
    const std::string reason = req.has_aborted_reason() ? req.aborted_reason() : co.aborted_reason;
    store::NewEvent e = ChangeOrderEvent(
        rco, p, store::kChangeOrderBlocked, co.stage,
        absl::StrCat("blocked: the content it brought (", units,
                     " Units across the Spaces it reached) moves into no Space that does not run"
                     " it already (reason: ",
                     reason, ")"));
    e.details_json = absl::StrCat(R"({"Units":)", units, "}");
    return store::AppendEvent(tx, e);
  }
  if (req.unblock()) {
    CUB_RETURN_IF_ERROR(store::UnblockChangeOrder(tx, co.id));
    // Promotions of other ChangeOrders, of any base, may have waited on it.
    CUB_ASSIGN_OR_RETURN(auto open, store::OpenChangeOrderIds(tx));
    CUB_RETURN_IF_ERROR(store::Wake(tx, open));
    return store::AppendEvent(
        tx, ChangeOrderEvent(rco, p, store::kChangeOrderUnblocked, co.stage,
                             "unblocked: the content it brought may move again; it stays aborted"));
  }
  return absl::OkStatus();
}

}  // namespace cub::ops
