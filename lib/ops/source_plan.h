// Promoting a ChangeOrder that follows value-writing Links (TransformPaths, Insert, Upsert):
// in each target Space, every Link of the ChangeOrder's type to one of its sources is resolved
// at the revision the ChangeOrder's end Tag marks on the source, never at the source's head, so
// a newer source value written during the rollout does not reach a later Stage. Nothing is
// cloned; each Space resolves its own Links.
//
// Unlike PlanPromotion this writes as it goes (through the resolve engine, lib/ops/resolve.h),
// each Space under a savepoint: a Space that fails is rolled back and reported, and the others
// stand. A dry run rolls every Space back after reporting it.
#ifndef CUB_LIB_OPS_SOURCE_PLAN_H_
#define CUB_LIB_OPS_SOURCE_PLAN_H_

#include <vector>

#include "lib/ops/promotion_plan.h"

namespace cub::ops {

std::vector<SpacePlan> PromoteFromSources(store::Tx& tx, const PlanOptions& opts,
                                          const std::vector<v1::Space>& targets, bool dry_run);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_SOURCE_PLAN_H_
