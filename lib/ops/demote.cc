#include "lib/ops/demote.h"

#include "absl/strings/str_cat.h"
#include "lib/config/yaml.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/validation.h"
#include "lib/store/promotion.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

std::string RestoreTagSlug(const std::string& change_order_slug) {
  return absl::StrCat(change_order_slug, "-co-restore");
}

absl::StatusOr<v1::DemoteResponse> Demote(store::ConnectionPool& db, const Principal& p,
                                          const v1::DemoteRequest& req) {
  if (req.spaces_size() == 0) {
    return absl::InvalidArgumentError("name the Space to demote (one or more)");
  }
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::DemoteResponse> {
    v1::DemoteResponse out;
    out.Clear();
    out.set_dry_run(req.dry_run());
    // The ChangeOrder's row lock, as promotion takes it: a demote and a promotion of one
    // ChangeOrder do not interleave.
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), "", !req.dry_run()));
    const auto& co = rco.co;
    out.set_change_order(absl::StrCat(rco.base.slug(), "/", co.slug));
    if (co.aborted_reason.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("change order '", co.slug,
                       "' has not been aborted: abort it first with cub changeorder"
                       " update --aborted-reason REASON"));
    }
    std::optional<v1::Tag> restore_tag =
        store::FindTag(tx, rco.base.space_id(), RestoreTagSlug(co.slug));
    if (!restore_tag && !req.dry_run()) {
      CUB_ASSIGN_OR_RETURN(
          auto made, store::InsertTag(tx, store::NewTag{rco.base.space_id(),
                                                        RestoreTagSlug(co.slug),
                                                        "Where demoting change order " + co.slug +
                                                            " restored each unit",
                                                        {}}));
      restore_tag = made;
    }
    for (const auto& ref : req.spaces()) {
      CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, ref, Access::kWrite));
      // Restore marks are read through the "publish" slot of the promotion reader.
      std::vector<store::PromotionUnit> units = store::LoadPromotionUnits(
          tx, {space.space_id()},
          req.dry_run() ? std::vector<std::string>{} : std::vector<std::string>{space.space_id()},
          store::PromotionTags{
              co.start_tag_id, co.end_tag_id,
              restore_tag ? restore_tag->tag_id() : "00000000-0000-0000-0000-000000000000"});
      std::vector<store::RevisionSpan> spans;
      bool reached = false;
      for (const auto& u : units) {
        if (!u.start_mark) continue;
        reached = true;
        if (*u.start_mark > 0) spans.push_back({u.id, *u.start_mark, *u.start_mark});
        int64_t end = u.end_mark.value_or(*u.start_mark);
        if (u.head > end) spans.push_back({u.id, end + 1, u.head});
      }
      if (!reached) {
        return absl::FailedPreconditionError(
            absl::StrCat("change order '", co.slug, "' never reached space '", space.slug(),
                         "': it marked none of its units, so there is nothing of it to restore"));
      }
      auto data = store::LoadRevisionData(tx, spans);
      v1::DemotedSpace* report = out.add_spaces();
      report->set_space_id(space.space_id());
      report->set_space(space.slug());
      store::PromotionWrites w;
      bool any = false;
      for (const auto& u : units) {
        if (!u.start_mark) continue;
        v1::DemotedUnit* du = report->add_units();
        du->set_unit_id(u.id);
        du->set_unit(u.slug);
        du->set_start_revision_num(static_cast<int32_t>(*u.start_mark));
        if (u.publish_mark) {  // the restore Tag's mark
          du->set_action("AlreadyRestored");
          du->set_revision_num(static_cast<int32_t>(*u.publish_mark));
          continue;
        }
        any = true;
        int64_t end = u.end_mark.value_or(*u.start_mark);
        for (int64_t n = end + 1; n <= u.head; ++n) {
          auto it = data.find({u.id, n});
          du->add_dropped(it == data.end() ? absl::StrCat(n)
                                           : absl::StrCat(n, " (", it->second.description, ")"));
        }
        if (u.head == *u.start_mark) {
          du->set_action("Unchanged");
          du->set_revision_num(static_cast<int32_t>(u.head));
          if (restore_tag) w.marks.push_back({restore_tag->tag_id(), u.id, u.head});
          continue;
        }
        store::PromotionWrites::Revision r;
        r.unit_id = u.id;
        r.space_id = space.space_id();
        r.num = u.head + 1;
        if (*u.start_mark > 0) {
          const auto& start = data.at({u.id, *u.start_mark});
          r.data = start.data;
          r.data_hash = start.data_hash;
        } else {
          CUB_ASSIGN_OR_RETURN(auto hash, config::DataHash(""));
          r.data_hash = hash;
        }
        r.author_id = p.user_id;
        r.description = req.change_desc().empty()
                            ? absl::StrCat("Demoted change order ", co.slug, ": restored revision ",
                                           *u.start_mark)
                            : req.change_desc();
        r.restored_from_num = *u.start_mark;
        if (space.validating_invocations_size() > 0) {
          store::NewRevision vet;
          vet.data = r.data;
          CUB_RETURN_IF_ERROR(RunValidators(tx, space, u.toolchain_type, &vet));
          r.validation_errors_json = JsonText(vet.validation_errors);
        }
        w.revisions.push_back(std::move(r));
        w.heads.push_back({u.id, u.head + 1});
        if (restore_tag) w.marks.push_back({restore_tag->tag_id(), u.id, u.head + 1});
        du->set_action("Restored");
        du->set_revision_num(static_cast<int32_t>(u.head + 1));
      }
      report->set_status(!any ? "AlreadyDemoted" : req.dry_run() ? "WouldDemote" : "Demoted");
      if (!req.dry_run()) CUB_RETURN_IF_ERROR(store::WritePromotion(tx, w));
    }
    return out;
  });
}

}  // namespace cub::ops
