// The merge step of planning a promotion (see promotion_classify.h for the steps): each UnitJob a
// Space was classified with is run in memory over the loaded revisions, appending the rows it
// would write and one report Unit. Each upstream revision is parsed, and the Change between
// two consecutive ones computed, once for every Space that merges it. Nothing is written.
#ifndef CUB_LIB_OPS_PROMOTION_MERGE_H_
#define CUB_LIB_OPS_PROMOTION_MERGE_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/ops/promotion_classify.h"
#include "lib/ops/promotion_plan.h"
#include "lib/store/promotion.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// Revisions by (Unit ID, number), as store::LoadRevisionData returns them.
using RevisionMap = std::map<std::pair<std::string, int64_t>, store::RevisionData>;

// Runs the UnitJobs of every Space not settled by classification, in order. A UnitJob that cannot
// run leaves its report Unit Failed with the reason; the Space's other UnitJobs still run, so the
// report names every Unit that fails. `data` holds at least RevisionSpans(spaces). New
// revisions are vetted by their Space's validators (which reads them from `tx`).
absl::Status MergeJobs(store::Tx& tx, const PlanOptions& opts, const PromotionFacts& facts,
                       const RevisionMap& data, std::vector<SpaceClassification>& spaces);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_MERGE_H_
