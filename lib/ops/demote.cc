#include "lib/ops/demote.h"

#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/config/yaml.h"
#include "lib/domain/vocabulary.h"
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

namespace {

// The ChangeOrder's restore Tag, made on first use (a dry run makes nothing: none yet).
absl::StatusOr<std::optional<v1::Tag>> RestoreTag(store::Tx& tx, const ResolvedChangeOrder& rco,
                                                  bool dry_run) {
  const auto& co = rco.co;
  CUB_ASSIGN_OR_RETURN(std::optional<v1::Tag> restore_tag,
                       store::FindTag(tx, rco.base.space_id(), RestoreTagSlug(co.slug)));
  if (!restore_tag && !dry_run) {
    CUB_ASSIGN_OR_RETURN(
        auto made, store::InsertTag(tx, store::NewTag{rco.base.space_id(),
                                                      RestoreTagSlug(co.slug),
                                                      "Where demoting change order " + co.slug +
                                                          " restored each unit",
                                                      {}}));
    restore_tag = made;
  }
  return restore_tag;
}

// Demotes the Units of one Space: reads them and the revisions a restore needs, reports each
// and, unless a dry run, writes the restores.
class SpaceDemotion {
 public:
  SpaceDemotion(store::Tx& tx, const Principal& p, const v1::DemoteRequest& req,
                const store::StoredChangeOrder& co, const std::optional<v1::Tag>& restore_tag,
                const v1::Space& space)
      : tx_(tx),
        p_(p),
        req_(req),
        co_(co),
        restore_tag_(restore_tag),
        space_(space),
        validators_(tx) {}

  absl::Status Run(v1::DemotedSpace* report) {
    // Restore marks are read through the "publish" slot of the promotion reader.
    CUB_ASSIGN_OR_RETURN(
        std::vector<store::PromotionUnit> units,
        store::LoadPromotionUnits(
            tx_, {space_.space_id()},
            req_.dry_run() ? std::vector<std::string>{}
                           : std::vector<std::string>{space_.space_id()},
            store::PromotionTags{
                co_.start_tag_id, co_.end_tag_id,
                restore_tag_ ? restore_tag_->tag_id() : "00000000-0000-0000-0000-000000000000"}));
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
          absl::StrCat("change order '", co_.slug, "' never reached space '", space_.slug(),
                       "': it marked none of its units, so there is nothing of it to restore"));
    }
    CUB_ASSIGN_OR_RETURN(data_, store::LoadRevisionData(tx_, spans));
    report->set_space_id(space_.space_id());
    report->set_space(space_.slug());
    bool any = false;
    for (const auto& u : units) {
      if (!u.start_mark) continue;
      v1::DemotedUnit* du = report->add_units();
      du->set_unit_id(u.id);
      du->set_unit(u.slug);
      du->set_start_revision_num(static_cast<int32_t>(*u.start_mark));
      if (u.publish_mark) {  // the restore Tag's mark
        du->set_action(
            std::string(domain::DemotionActionName(domain::DemotionAction::kAlreadyRestored)));
        du->set_revision_num(static_cast<int32_t>(*u.publish_mark));
        continue;
      }
      any = true;
      CUB_RETURN_IF_ERROR(RestoreUnit(u, du));
    }
    report->set_status(std::string(
        domain::DemotionStatusName(!any             ? domain::DemotionStatus::kAlreadyDemoted
                                   : req_.dry_run() ? domain::DemotionStatus::kWouldDemote
                                                    : domain::DemotionStatus::kDemoted)));
    if (!req_.dry_run()) CUB_RETURN_IF_ERROR(store::WritePromotion(tx_, w_));
    return absl::OkStatus();
  }

 private:
  // A Unit the restore Tag does not mark yet: names what a restore drops, then brings back
  // its start revision in a new one (or, already there, just marks it).
  absl::Status RestoreUnit(const store::PromotionUnit& u, v1::DemotedUnit* du) {
    int64_t end = u.end_mark.value_or(*u.start_mark);
    for (int64_t n = end + 1; n <= u.head; ++n) {
      auto it = data_.find({u.id, n});
      du->add_dropped(it == data_.end() ? absl::StrCat(n)
                                        : absl::StrCat(n, " (", it->second.description, ")"));
    }
    if (u.head == *u.start_mark) {
      du->set_action(std::string(domain::DemotionActionName(domain::DemotionAction::kUnchanged)));
      du->set_revision_num(static_cast<int32_t>(u.head));
      if (restore_tag_) w_.marks.push_back({restore_tag_->tag_id(), u.id, u.head});
      return absl::OkStatus();
    }
    store::PromotionWrites::Revision r;
    r.unit_id = u.id;
    r.space_id = space_.space_id();
    r.num = u.head + 1;
    if (*u.start_mark > 0) {
      const auto& start = data_.at({u.id, *u.start_mark});
      r.data = start.data;
      r.data_hash = start.data_hash;
    } else {
      CUB_ASSIGN_OR_RETURN(auto hash, config::DataHash(""));
      r.data_hash = hash;
    }
    r.author_id = p_.user_id;
    r.description = req_.change_desc().empty() ? absl::StrCat("Demoted change order ", co_.slug,
                                                              ": restored revision ", *u.start_mark)
                                               : req_.change_desc();
    r.restored_from_num = *u.start_mark;
    if (space_.validating_invocations_size() > 0) {
      store::NewRevision vet;
      vet.data = r.data;
      CUB_RETURN_IF_ERROR(validators_.Run(space_, u.toolchain_type, &vet));
      r.validation_errors_json = JsonText(vet.validation_errors);
    }
    w_.revisions.push_back(std::move(r));
    w_.heads.push_back({u.id, u.head + 1});
    if (restore_tag_) w_.marks.push_back({restore_tag_->tag_id(), u.id, u.head + 1});
    du->set_action(std::string(domain::DemotionActionName(domain::DemotionAction::kRestored)));
    du->set_revision_num(static_cast<int32_t>(u.head + 1));
    return absl::OkStatus();
  }

  store::Tx& tx_;
  const Principal& p_;
  const v1::DemoteRequest& req_;
  const store::StoredChangeOrder& co_;
  const std::optional<v1::Tag>& restore_tag_;
  const v1::Space& space_;
  std::map<std::pair<std::string, int64_t>, store::RevisionData> data_;
  store::PromotionWrites w_;
  Validators validators_;  // each validator read once for all the Units demoted
};

}  // namespace

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
                       "' has not been aborted: abort it first with UpdateChangeOrder,"
                       " giving an AbortedReason"));
    }
    CUB_ASSIGN_OR_RETURN(auto restore_tag, RestoreTag(tx, rco, req.dry_run()));
    for (const auto& ref : req.spaces()) {
      CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, ref, Access::kWrite));
      v1::DemotedSpace report;
      CUB_RETURN_IF_ERROR(SpaceDemotion(tx, p, req, co, restore_tag, space).Run(&report));
      *out.add_spaces() = std::move(report);
    }
    return out;
  });
}

}  // namespace cub::ops
