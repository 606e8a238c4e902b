// The pure middle of planning a promotion (promotion_plan.h): from the facts loaded for it,
// what each target Space and each of its Units is to do, and which revisions that needs. No
// database here: the facts are plain structs, so every outcome is testable without one
// (tests/unit/promotion_classify_test.cc).
//
// The steps, in the order PlanPromotion runs them:
//   load (promotion_plan.cc)   -> PromotionFacts, indexed once
//   ClassifySpace              -> per Space: a settled status (AlreadyPromoted, Failed), or the
//                                 report of Units settled without a merge and the UnitJobs left
//   RevisionSpans              -> the revisions every UnitJob reads, for one query
//   merge (promotion_merge.h)  -> each UnitJob run in memory, one report Unit each
//   FinalizeSpace              -> Promoted, or Failed with no writes if any Unit failed
#ifndef CUB_LIB_OPS_PROMOTION_CLASSIFY_H_
#define CUB_LIB_OPS_PROMOTION_CLASSIFY_H_

#include <map>
#include <string>
#include <vector>

#include "cub/v1/changeorder.pb.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/promotion_plan.h"
#include "lib/store/promotion.h"

namespace cub::ops {

// What the store holds about a promotion's targets and the Spaces they take the change from.
// The indexes point into `units` and `links`: build them with Index() once those are final.
// Moving keeps the pointers valid (a vector's elements stay where they are); copying would
// not, so it is not allowed.
struct PromotionFacts {
  std::vector<store::PromotionUnit> units;  // of the targets and their sources
  std::vector<store::PromotionLink> links;  // out of the targets' Units
  std::map<std::string, v1::Space> spaces;  // by ID: the targets and their sources

  std::map<std::string, const store::PromotionUnit*> unit_by_id;
  std::map<std::string, std::vector<const store::PromotionUnit*>> units_by_space;
  std::map<std::string, std::vector<const store::PromotionLink*>> links_from_unit;
  std::map<std::string, std::vector<const store::PromotionLink*>> links_by_space;  // downstream

  PromotionFacts() = default;
  PromotionFacts(PromotionFacts&&) = default;
  PromotionFacts& operator=(PromotionFacts&&) = default;
  PromotionFacts(const PromotionFacts&) = delete;
  PromotionFacts& operator=(const PromotionFacts&) = delete;

  void Index();
  // The Space's slug, or its ID when it was not loaded.
  std::string SlugOf(const std::string& space_id) const;
  // The Units of a Space (none if it has none), and a Unit by ID (nullptr if not loaded).
  const std::vector<const store::PromotionUnit*>& UnitsOf(const std::string& space_id) const;
  const store::PromotionUnit* Unit(const std::string& unit_id) const;
};

// What one Unit of a target is to do once revisions are loaded.
struct UnitJob {
  const store::PromotionUnit* target = nullptr;  // null: clone `upstream` into the Space
  const store::PromotionLink* link = nullptr;    // the Link it follows (null for a clone)
  const store::PromotionUnit* upstream = nullptr;
  int64_t cursor = 0, start = 0, end = 0;
  bool merge_prior = false;  // merge cursor..start first, outside the change
  // Prior revisions Error: the target has not merged cursor+1..start; it is reported Failed,
  // naming those revisions (their descriptions are loaded with the rest), and nothing is run.
  bool refuse_prior = false;
};

// One target Space as classified: its plan so far and the UnitJobs the merge step is to run.
struct SpaceClassification {
  const v1::Space* space = nullptr;
  // The report has the Space's ID and slug; a status only when settled here (AlreadyPromoted,
  // or Failed with the Space's error and no Units). Units settled without a merge (Failed,
  // AlreadyHadChange, Unchanged, OutsideChange) are in it already, and their marks and
  // cursors in the writes.
  SpacePlan plan;
  std::vector<UnitJob> jobs;
  bool settled() const { return !plan.report.status().empty(); }
};

// Classifies `space` (one of the targets `facts` was loaded for) under `opts`.
SpaceClassification ClassifySpace(const PlanOptions& opts, const PromotionFacts& facts,
                                  const v1::Space& space);

// The revisions the UnitJobs of every Space read: each target Unit's head, each upstream Unit's
// range over all the UnitJobs that merge it, and the prior revisions a refusal names.
std::vector<store::RevisionSpan> RevisionSpans(const std::vector<SpaceClassification>& spaces);

// After the merge step, of a Space not settled by classification: Promoted, or, if any of its
// Units failed, Failed ("some of its units cannot take the change") with its writes dropped.
void FinalizeSpace(SpacePlan& plan);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_CLASSIFY_H_
