// Planning a promotion of an Invoke ChangeOrder: in each target Space, the Invocation fixed at
// creation runs on the Units its selection picks that do not carry the change yet. Nothing is
// merged or cloned, so the Spaces need not be variants of one another. Nothing is written here.
#ifndef CUB_LIB_OPS_INVOKE_PLAN_H_
#define CUB_LIB_OPS_INVOKE_PLAN_H_

#include <vector>

#include "absl/status/statusor.h"
#include "lib/ops/promotion_plan.h"

namespace cub::ops {

// One plan per target, in order, as PlanPromotion's (same statuses and Unit actions, with
// "Invoked" for a Unit the Invocation changed). An Invocation that cannot run (its arguments
// or its selection refused) fails every plan; one that fails on a Unit (its head does not
// parse, the function refuses it, a validator cannot be run) fails that Unit and its Space.
// An error is returned only when the Units or their revisions cannot be read.
absl::StatusOr<std::vector<SpacePlan>> PlanInvoke(store::Tx& tx, const PlanOptions& opts,
                                                  const std::vector<v1::Space>& targets);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_INVOKE_PLAN_H_
