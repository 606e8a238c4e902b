#include "lib/ops/source_plan.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "lib/ops/resolve.h"
#include "lib/store/promotion.h"
#include "lib/store/units.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

// Resolves and marks one Space; an error leaves its writes for the caller to roll back.
absl::Status PromoteSpace(store::Tx& tx, const PlanOptions& opts, const v1::Space& space,
                          v1::PromotedSpace& report) {
  const auto& co = opts.rco->co;
  const store::PromotionTags tags{co.start_tag_id, co.end_tag_id, co.publish_tag_id};
  CUB_ASSIGN_OR_RETURN(std::vector<store::PromotionUnit> units,
                       store::LoadPromotionUnits(tx, {space.space_id()}, {space.space_id()}, tags));
  CUB_ASSIGN_OR_RETURN(std::vector<store::PromotionLink> links,
                       store::LoadLinksFrom(tx, {space.space_id()}, co.update_type));
  // The source Units' end marks: where every Space resolves to.
  std::vector<std::string> source_spaces;
  for (const auto& l : links) source_spaces.push_back(l.to_space_id);
  std::map<std::string, int64_t> source_end;
  CUB_ASSIGN_OR_RETURN(auto sources, store::LoadPromotionUnits(tx, source_spaces, {}, tags));
  for (const auto& u : sources) {
    if (u.end_mark) source_end[u.id] = *u.end_mark;
  }
  std::map<std::string, std::vector<const store::PromotionLink*>> by_unit;
  for (const auto& l : links) {
    if (source_end.count(l.to_unit_id)) by_unit[l.from_unit_id].push_back(&l);
  }
  store::PromotionWrites marks;
  auto mark = [&](const std::string& unit, int64_t start, int64_t end) {
    marks.marks.push_back({co.start_tag_id, unit, start});
    marks.marks.push_back({co.end_tag_id, unit, end});
    marks.marks.push_back({co.publish_tag_id, unit, end});
  };
  for (const auto& u : units) {
    if (u.toolchain_type == kConfigHubYaml || u.head == 0 || u.end_mark) continue;
    auto it = by_unit.find(u.id);
    if (it == by_unit.end()) {
      mark(u.id, u.head, u.head);  // a Unit the change does not change
      continue;
    }
    v1::PromotedUnit* r = report.add_units();
    r->set_unit_id(u.id);
    r->set_unit(u.slug);
    r->set_start_revision_num(static_cast<int32_t>(u.head));
    for (const auto* l : it->second) {
      CUB_ASSIGN_OR_RETURN(auto current, store::FindUnit(tx, space.space_id(), u.id));
      if (!current) return absl::InternalError("unit vanished");
      v1::UpdateUnitRequest req;
      req.set_space(space.slug());
      req.set_unit(u.id);
      req.set_patch(true);
      req.set_resolve(absl::StrCat("Link:Slug = '", l->slug, "'"));
      req.set_merge_end(static_cast<int32_t>(source_end[l->to_unit_id]));
      req.set_change_desc(absl::StrCat("Change order ", co.slug, ": resolved link ", l->slug,
                                       " at revision ", source_end[l->to_unit_id]));
      v1::UpdateUnitResponse out;
      if (auto s = Resolve(tx, *opts.principal, space, *current, req, "", &out); !s.ok()) {
        SetAction(*r, PromotionAction::kFailed);
        r->set_error(std::string(s.message()));
        return absl::FailedPreconditionError("some of its units cannot take the change");
      }
    }
    CUB_ASSIGN_OR_RETURN(auto after, store::FindUnit(tx, space.space_id(), u.id));
    if (!after) return absl::InternalError("unit vanished");
    int64_t end = after->head_revision_num();
    r->set_end_revision_num(static_cast<int32_t>(end));
    r->set_revisions_written(static_cast<int32_t>(end - u.head));
    SetAction(*r, end > u.head ? PromotionAction::kResolved : PromotionAction::kAlreadyHadChange);
    mark(u.id, u.head, end);
  }
  CUB_RETURN_IF_ERROR(store::WritePromotion(tx, marks));
  return absl::OkStatus();
}

}  // namespace

std::vector<SpacePlan> PromoteFromSources(store::Tx& tx, const PlanOptions& opts,
                                          const std::vector<v1::Space>& targets, bool dry_run) {
  std::vector<SpacePlan> plans(targets.size());
  for (size_t t = 0; t < targets.size(); ++t) {
    v1::PromotedSpace& report = plans[t].report;
    report.set_space_id(targets[t].space_id());
    report.set_space(targets[t].slug());
    if (opts.resolved.count(targets[t].space_id())) {
      SetStatus(report, PromotionStatus::kAlreadyPromoted);
      continue;
    }
    absl::Status s =
        tx.Savepoint(!dry_run, [&] { return PromoteSpace(tx, opts, targets[t], report); });
    if (s.ok()) {
      SetStatus(report, PromotionStatus::kPromoted);
    } else {
      SetStatus(report, PromotionStatus::kFailed);
      report.set_error(std::string(s.message()));
    }
  }
  return plans;
}

}  // namespace cub::ops
