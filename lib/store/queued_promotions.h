// Promotions queued for the engine: one per base Space and Stage (queued_promotions).
#ifndef CUB_LIB_STORE_QUEUED_PROMOTIONS_H_
#define CUB_LIB_STORE_QUEUED_PROMOTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/store/caller.h"
#include "lib/store/transaction.h"

namespace cub::store {

// A queued promotion as the API shows it, with what the engine needs to carry it out.
struct StoredQueuedPromotion {
  v1::QueuedPromotion view;
  std::string base_space_id;
  std::string queued_by_id;
};

// Records `change_order_id`'s promotion into `stage` of `base_space_id`, queued by `user_id`,
// with what holds it, replacing whatever was queued there. Returns the replaced one, if it was
// another ChangeOrder's (re-queueing the same one only refreshes it).
absl::StatusOr<std::optional<StoredQueuedPromotion>> QueuePromotion(
    Tx& tx, const std::string& base_space_id, const std::string& stage,
    const std::string& change_order_id, const std::string& user_id,
    const std::vector<std::string>& waiting_for);
// The one queued into `stage` of `base_space_id`, if any.
absl::StatusOr<std::optional<StoredQueuedPromotion>> FindQueuedPromotion(
    Tx& tx, const std::string& base_space_id, const std::string& stage);
// Those of one ChangeOrder, in no particular order.
absl::StatusOr<std::vector<StoredQueuedPromotion>> QueuedPromotionsOf(
    Tx& tx, const std::string& change_order_id);
// Every one in a base Space `caller` can see (empty `base_space_id`: in all of them) that
// matches `where` (over QueuedPromotionSchema; a bad one is INVALID_ARGUMENT "where: ..."), by
// base Space and queue time.
absl::StatusOr<std::vector<StoredQueuedPromotion>> ListQueuedPromotions(
    Tx& tx, const Caller& caller, const std::string& base_space_id, const std::string& where = "");
// Removes the one of `change_order_id` into `stage`; false when there was none.
absl::StatusOr<bool> DeleteQueuedPromotion(Tx& tx, const std::string& change_order_id,
                                           const std::string& stage);
// Records what held it at the engine's latest evaluation.
absl::Status SetQueuedWaiting(Tx& tx, const std::string& change_order_id, const std::string& stage,
                              const std::vector<std::string>& waiting_for);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_QUEUED_PROMOTIONS_H_
