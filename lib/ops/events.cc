#include "lib/ops/events.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/page_token.h"
#include "lib/ops/where_field.h"
#include "lib/store/events.h"
#include "lib/store/transaction.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

absl::Status CheckBounds(const v1::ListEventsRequest& req) {
  if (req.limit() < 0 || req.limit() > kMaxEventLimit) {
    return absl::InvalidArgumentError(absl::StrCat("Limit ", req.limit(),
                                                   " is out of range: give 1 to ", kMaxEventLimit,
                                                   " (or 0 for ", kDefaultEventLimit, ")"));
  }
  if (req.after_id() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("AfterID ", req.after_id(), " is negative: event IDs start at 1"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ListEventsResponse> ListEvents(store::ConnectionPool& db, const Principal& p,
                                                  const v1::ListEventsRequest& req) {
  CUB_RETURN_IF_ERROR(CheckBounds(req));
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListEventsResponse> {
    v1::ListEventsResponse out;
    CUB_ASSIGN_OR_RETURN(PageStart page,
                         ReadPageStart(req, req.limit(), req.page_token(), 1, kDefaultEventLimit));
    store::EventFilter f;
    const bool all_spaces = req.space().empty() || req.space() == "*";
    if (!all_spaces) {
      CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
      f.space_id = space.space_id();
    }
    if (!req.change_order().empty()) {
      CUB_ASSIGN_OR_RETURN(auto rco, ResolveChangeOrder(tx, p, req.change_order(),
                                                        all_spaces ? "" : req.space(), false));
      f.change_order_id = rco.co.id;
    }
    f.where = req.where();
    f.after_id = req.after_id();
    if (!page.after.empty()) {
      int64_t last = 0;
      if (!absl::SimpleAtoi(page.after[0], &last) || last < f.after_id) {
        return absl::InvalidArgumentError("PageToken: not a page token of this list");
      }
      f.after_id = last;
    }
    f.limit = page.limit + 1;
    auto events = store::ListEvents(tx, ToCaller(p), f);
    if (!events.ok()) return NameWhereField(events.status(), "Where");
    out.set_next_page_token(FinishPage(page, *events, [](const v1::Event& e) {
      return std::vector<std::string>{std::to_string(e.id())};
    }));
    for (auto& e : *events) *out.add_events() = std::move(e);
    return out;
  });
}

store::NewEvent ChangeOrderEvent(const ResolvedChangeOrder& rco, const Principal& p,
                                 const std::string& kind, const std::string& stage,
                                 std::string message) {
  store::NewEvent e;
  e.kind = kind;
  e.space_id = rco.base.space_id();
  e.space_slug = rco.base.slug();
  e.change_order_id = rco.co.id;
  e.change_order = absl::StrCat(rco.base.slug(), "/", rco.co.slug);
  e.stage = stage;
  e.user_id = p.user_id;
  e.username = p.username;
  e.message = std::move(message);
  return e;
}

}  // namespace cub::ops
