// The merge planner's targets in batches, each merged on a second thread while the caller
// checks and writes the batch before it: the database's work and cubd's overlap, on two
// cores, instead of taking turns.
#ifndef CUB_LIB_OPS_PROMOTION_BATCHES_H_
#define CUB_LIB_OPS_PROMOTION_BATCHES_H_

#include <cstddef>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/promotion_plan.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// Usage:
//   PromotionBatches batches(tx, opts, targets, 500);
//   while (!batches.done()) {
//     CUB_ASSIGN_OR_RETURN(auto plans, batches.Next());
//     ... check and write `plans` with tx ...
//   }
//
// Next() returns the next batch's plans (PlanPromotion's, in the order of `targets`), having
// read the batch after it and started merging that one on a second thread; so the caller's use
// of `tx` until the following Next() overlaps that merge. The thread never touches `tx`: a
// batch whose merge reads the database (MergeReadsDatabase) is merged by Next() itself. The
// batches must be disjoint in their Spaces' Units, which distinct targets are, so reading one
// before the one ahead of it is written changes nothing.
//
// `tx`, `opts` and `targets` must outlive this object. The destructor waits for the thread.
class PromotionBatches {
 public:
  PromotionBatches(store::Tx& tx, const PlanOptions& opts, const std::vector<v1::Space>& targets,
                   size_t batch_size);
  ~PromotionBatches();
  PromotionBatches(const PromotionBatches&) = delete;
  PromotionBatches& operator=(const PromotionBatches&) = delete;

  bool done() const { return next_ >= targets_.size() && !ahead_; }
  // The plans of the next batch. An error (a read failed) ends the batches.
  absl::StatusOr<std::vector<SpacePlan>> Next();

 private:
  // Reads the batch starting at next_ into ahead_ and starts its merge if it may run alone.
  absl::Status LoadAhead();
  void Join();

  store::Tx& tx_;
  const PlanOptions& opts_;
  const std::vector<v1::Space>& targets_;
  const size_t batch_size_;
  size_t next_ = 0;           // the first target not yet read
  LoadedPromotionPtr ahead_;  // read, merged or being merged
  std::thread merging_;       // merging ahead_ into merged_, when joinable
  absl::StatusOr<std::vector<SpacePlan>> merged_;
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_BATCHES_H_
