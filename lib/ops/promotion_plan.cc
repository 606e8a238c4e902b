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

struct LoadedPromotion {
  std::vector<v1::Space> targets;  // what `spaces` point to: a loaded batch stands alone
  PromotionFacts facts;
  std::vector<SpaceClassification> spaces;
  RevisionMap data;
};

void LoadedPromotionDeleter::operator()(LoadedPromotion* p) const { delete p; }

absl::StatusOr<LoadedPromotionPtr> LoadPromotion(store::Tx& tx, const PlanOptions& opts,
                                                 std::vector<v1::Space> targets) {
  LoadedPromotionPtr out(new LoadedPromotion);
  out->targets = std::move(targets);
  CUB_ASSIGN_OR_RETURN(out->facts, LoadFacts(tx, opts, out->targets));
  out->spaces.reserve(out->targets.size());
  for (const auto& t : out->targets) out->spaces.push_back(ClassifySpace(opts, out->facts, t));
  CUB_ASSIGN_OR_RETURN(out->data, store::LoadRevisionData(tx, RevisionSpans(out->spaces)));
  return out;
}

bool MergeReadsDatabase(const LoadedPromotion& loaded) {
  for (const auto& c : loaded.spaces) {
    if (!c.settled() && c.space->validating_invocations_size() > 0) return true;
  }
  return false;
}

absl::StatusOr<std::vector<SpacePlan>> MergePromotion(store::Tx& tx, const PlanOptions& opts,
                                                      LoadedPromotion& loaded) {
  CUB_RETURN_IF_ERROR(MergeJobs(tx, opts, loaded.facts, loaded.data, loaded.spaces));
  std::vector<SpacePlan> plans;
  plans.reserve(loaded.spaces.size());
  for (auto& c : loaded.spaces) {
    if (!c.settled()) FinalizeSpace(c.plan);
    plans.push_back(std::move(c.plan));
  }
  return plans;
}

absl::StatusOr<std::vector<SpacePlan>> PlanPromotion(store::Tx& tx, const PlanOptions& opts,
                                                     const std::vector<v1::Space>& targets) {
  CUB_ASSIGN_OR_RETURN(LoadedPromotionPtr loaded, LoadPromotion(tx, opts, targets));
  return MergePromotion(tx, opts, *loaded);
}

}  // namespace cub::ops
