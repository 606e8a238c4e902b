// A promotion's report (PromotedSpace.Status, PromotedUnit.Action) read and written as the
// vocabulary's enums; the report carries their API names, and only these functions spell them.
#ifndef CUB_LIB_OPS_PROMOTION_REPORT_H_
#define CUB_LIB_OPS_PROMOTION_REPORT_H_

#include <optional>
#include <string>

#include "cub/v1/changeorder.pb.h"
#include "lib/domain/vocabulary.h"

namespace cub::ops {

using domain::PromotionAction;
using domain::PromotionStatus;

// nullopt while the Space has no status yet (its plan is still being made).
inline std::optional<PromotionStatus> StatusOf(const v1::PromotedSpace& s) {
  return domain::ParsePromotionStatus(s.status());
}
inline void SetStatus(v1::PromotedSpace& s, PromotionStatus status) {
  s.set_status(std::string(domain::PromotionStatusName(status)));
}

inline std::optional<PromotionAction> ActionOf(const v1::PromotedUnit& u) {
  return domain::ParsePromotionAction(u.action());
}
inline void SetAction(v1::PromotedUnit& u, PromotionAction action) {
  u.set_action(std::string(domain::PromotionActionName(action)));
}

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PROMOTION_REPORT_H_
