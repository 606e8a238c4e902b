#include "lib/ops/promotion_batches.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

PromotionBatches::PromotionBatches(store::Tx& tx, const PlanOptions& opts,
                                   const std::vector<v1::Space>& targets, size_t batch_size)
    : tx_(tx), opts_(opts), targets_(targets), batch_size_(std::max<size_t>(1, batch_size)) {}

PromotionBatches::~PromotionBatches() { Join(); }

void PromotionBatches::Join() {
  if (merging_.joinable()) merging_.join();
}

absl::Status PromotionBatches::LoadAhead() {
  const size_t last = std::min(targets_.size(), next_ + batch_size_);
  std::vector<v1::Space> batch(targets_.begin() + next_, targets_.begin() + last);
  next_ = last;
  CUB_ASSIGN_OR_RETURN(ahead_, LoadPromotion(tx_, opts_, std::move(batch)));
  if (MergeReadsDatabase(*ahead_)) return absl::OkStatus();  // merged by Next, in turn
  merging_ = std::thread([this] {
    try {
      merged_ = MergePromotion(tx_, opts_, *ahead_);
    } catch (const std::exception& e) {
      merged_ = absl::InternalError(absl::StrCat("merging a batch of the promotion: ", e.what()));
    }
  });
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SpacePlan>> PromotionBatches::Next() {
  if (!ahead_) {
    if (next_ >= targets_.size()) return std::vector<SpacePlan>();
    CUB_RETURN_IF_ERROR(LoadAhead());
  }
  // The thread is joined only here (and by the destructor): joinable means it merged ahead_.
  if (merging_.joinable()) {
    Join();
  } else {
    merged_ = MergePromotion(tx_, opts_, *ahead_);
  }
  absl::StatusOr<std::vector<SpacePlan>> plans = std::move(merged_);
  ahead_.reset();
  if (!plans.ok()) return plans;
  if (next_ < targets_.size()) CUB_RETURN_IF_ERROR(LoadAhead());
  return plans;
}

}  // namespace cub::ops
