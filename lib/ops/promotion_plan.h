// Planning a promotion: from a few set-based reads, what each target Space's Units become and
// the rows that records (see promote.h for the rules). Nothing is written here. The steps
// (load, classify, revision spans, merge, finalize) are laid out in promotion_classify.h.
#ifndef CUB_LIB_OPS_PROMOTION_PLAN_H_
#define CUB_LIB_OPS_PROMOTION_PLAN_H_

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/principal.h"
#include "lib/ops/promotion_report.h"
#include "lib/store/promotion.h"
#include "lib/store/transaction.h"

namespace cub::ops {

struct PlanOptions {
  const ResolvedChangeOrder* rco = nullptr;
  const Principal* principal = nullptr;
  domain::PriorRevisions prior_revisions = domain::PriorRevisions::kInclude;
  std::set<std::string> resolved;  // Spaces that have taken the change (the base included)
  bool lock = true;                // lock the targets' Units (false for a dry run)
  bool mutations = false;          // report the values each Unit changes
  // Only this Unit (`cub unit update --upgrade --change-order`): no clones, no marks on other
  // Units, no publish mark, and its source Unit need only carry the change itself.
  std::string only_unit_id;
};

struct SpacePlan {
  v1::PromotedSpace report;
  store::PromotionWrites writes;
  bool failed() const { return StatusOf(report) == PromotionStatus::kFailed; }
};

// One plan per target, in the order given. A Space that cannot take the change has status
// Failed and its error (and its Units' errors) in the report, and no writes. An error is
// returned only when the facts cannot be read (the Spaces the targets take the change from).
// LoadPromotion then MergePromotion.
absl::StatusOr<std::vector<SpacePlan>> PlanPromotion(store::Tx& tx, const PlanOptions& opts,
                                                     const std::vector<v1::Space>& targets);

// PlanPromotion in two steps, so that a caller may merge one batch of targets while the
// database writes another: LoadPromotion does the reads, MergePromotion the computation.
struct LoadedPromotion;
struct LoadedPromotionDeleter {
  void operator()(LoadedPromotion* p) const;
};
using LoadedPromotionPtr = std::unique_ptr<LoadedPromotion, LoadedPromotionDeleter>;

// The facts, each target classified, and the revisions the merge reads. Errors as
// PlanPromotion's.
absl::StatusOr<LoadedPromotionPtr> LoadPromotion(store::Tx& tx, const PlanOptions& opts,
                                                 std::vector<v1::Space> targets);

// Whether MergePromotion of `loaded` uses the transaction: it reads the Invocations of the
// targets that validate their revisions. When false, MergePromotion does not touch `tx`, and
// may run on another thread while the caller uses it.
bool MergeReadsDatabase(const LoadedPromotion& loaded);

// The plans of the targets `loaded` was read for, as PlanPromotion returns them.
absl::StatusOr<std::vector<SpacePlan>> MergePromotion(store::Tx& tx, const PlanOptions& opts,
                                                      LoadedPromotion& loaded);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_PLAN_H_
