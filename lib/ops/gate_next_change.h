// When a refused promotion may be tried again with hope: the moment a gate that held it can
// hold by time alone (GateReport::NextChange: a soak's end), carried on the refusal's Status
// so that the promotion engine, which sees only the Status, keeps the ChangeOrder's work row
// due at that moment instead of sweeping for it.
#ifndef CUB_LIB_OPS_GATE_NEXT_CHANGE_H_
#define CUB_LIB_OPS_GATE_NEXT_CHANGE_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace cub::ops {

// Attaches `at` to `refusal` (nothing when unset or `refusal` is OK).
void SetNextChange(absl::Status& refusal, std::optional<absl::Time> at);
// What SetNextChange attached; unset when nothing was.
std::optional<absl::Time> NextChangeOf(const absl::Status& refusal);
// The sooner of two moments, either of which may be unset.
std::optional<absl::Time> SoonestOf(std::optional<absl::Time> a, std::optional<absl::Time> b);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_GATE_NEXT_CHANGE_H_
