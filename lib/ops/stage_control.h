// Who moves a ChangeOrder into each of its Stages: the Mode and AutoRelease of the Stages of
// its workflow as the workflow is now, not as the ChangeOrder copied it (lib/workflow/model.h
// says why). A Stage the current workflow no longer has, or a workflow since deleted, reads as
// Manual without AutoRelease: the server then leaves it to people.
#ifndef CUB_LIB_OPS_STAGE_CONTROL_H_
#define CUB_LIB_OPS_STAGE_CONTROL_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "lib/ops/change_orders.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

struct StageControl {
  workflow::StageMode mode = workflow::StageMode::kManual;
  bool auto_release = false;  // acted on only while the Stage is Automatic
};

struct StageControls {
  std::map<std::string, StageControl> by_stage;
  // Whether a gate of the current workflow may open with time alone (a CEL expression that
  // reads `now`): the engine then looks again later. An attestation's MaxAge or expiry only
  // ever closes a gate, so it needs no second look.
  bool time_gated = false;

  StageControl Of(const std::string& stage) const {
    auto it = by_stage.find(stage);
    return it == by_stage.end() ? StageControl() : it->second;
  }
};

// The controls for `rco`'s Stages; empty when it follows no workflow.
absl::StatusOr<StageControls> CurrentStageControls(store::Tx& tx, const ResolvedChangeOrder& rco);

// The refusal of a promotion by hand into `stage`, an Automatic Stage of `rco`'s workflow.
absl::Status AutomaticStageRefusal(const ResolvedChangeOrder& rco, const std::string& stage);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_STAGE_CONTROL_H_
