#include "lib/ops/promotion_plan.h"

#include <set>
#include <utility>

#include "lib/ops/promotion_classify.h"
#include "lib/ops/promotion_merge.h"
#include "lib/store/spaces.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// The load step: the targets' Links and the Spaces they lead to, and the Units of both with
// the ChangeOrder's marks (the targets' locked unless a dry run), in three reads.
absl::StatusOr<PromotionFacts> LoadFacts(store::Tx& tx, const PlanOptions& opts,
                                         const std::vector<v1::Space>& targets) {
  const auto& co = opts.rco->co;
  const bool upgrade = opts.rco->update_type == domain::UpdateType::kUpgradeUnit;
  PromotionFacts facts;
  std::vector<std::string> target_ids;
  for (const auto& t : targets) target_ids.push_back(t.space_id());
  CUB_ASSIGN_OR_RETURN(facts.links, store::LoadLinksFrom(tx, target_ids, co.update_type));
  std::set<std::string> source_ids;
  for (const auto& l : facts.links) source_ids.insert(l.to_space_id);
  for (const auto& t : targets) {
    if (upgrade && !t.upstream_space_id().empty()) source_ids.insert(t.upstream_space_id());
  }
  CUB_ASSIGN_OR_RETURN(auto sources,
                       store::SpacesAmong(tx, {source_ids.begin(), source_ids.end()}, ""));
  for (const auto& s : sources) facts.spaces[s.space_id()] = s;
  for (const auto& t : targets) facts.spaces[t.space_id()] = t;
  std::vector<std::string> load_ids = target_ids;
  load_ids.insert(load_ids.end(), source_ids.begin(), source_ids.end());
  CUB_ASSIGN_OR_RETURN(
      facts.units, store::LoadPromotionUnits(
                       tx, load_ids, opts.lock ? target_ids : std::vector<std::string>{},
                       store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
  facts.Index();
  return facts;
}

}  // namespace

absl::StatusOr<std::vector<SpacePlan>> PlanPromotion(store::Tx& tx, const PlanOptions& opts,
                                                     const std::vector<v1::Space>& targets) {
  CUB_ASSIGN_OR_RETURN(auto facts, LoadFacts(tx, opts, targets));
  std::vector<SpaceClassification> spaces;
  spaces.reserve(targets.size());
  for (const auto& t : targets) spaces.push_back(ClassifySpace(opts, facts, t));
  CUB_ASSIGN_OR_RETURN(RevisionMap data, store::LoadRevisionData(tx, RevisionSpans(spaces)));
  CUB_RETURN_IF_ERROR(MergeJobs(tx, opts, facts, data, spaces));
  std::vector<SpacePlan> plans;
  plans.reserve(spaces.size());
  for (auto& c : spaces) {
    if (!c.settled()) FinalizeSpace(c.plan);
    plans.push_back(std::move(c.plan));
  }
  return plans;
}

}  // namespace cub::ops
