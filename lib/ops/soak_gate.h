// The built-in prerequisite Soaked: it holds over a Space of the Stage before once the Release
// there that carries the change has been reported Healthy, with no Degraded report since, for
// the SoakTime of the Stage whose Prerequisites name it. The clock starts at the healthy time
// of the Release's current deployment entry (store::SoakStates); a Degraded report ends that
// entry, and the next Healthy report opens a new one, so the clock restarts then. A newer
// Release in the Space starts its own clock.
//
// While the Release is Healthy and soaking, the finding's `earliest` is the soak's end, so the
// promotion engine looks again at that moment (GateReport::NextChange). While it is not
// Healthy there is no such time: the next status report wakes the ChangeOrder.
#ifndef CUB_LIB_OPS_SOAK_GATE_H_
#define CUB_LIB_OPS_SOAK_GATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gate_report.h"
#include "lib/store/soak.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

// What one Space's Soaked finding is judged with.
struct SoakSubject {
  const v1::Space* space = nullptr;
  std::string who;           // "Variant 'staging'", as the refusal names the Space
  std::string stage;         // the finding's Stage (the one being entered)
  std::string prefix;        // "unable to promote to stage 'prod'"
  std::string change_order;  // the ChangeOrder's slug
};

// Pure: the finding for one Space, from what the store read (nullptr: nothing, e.g. the Space
// is gone). `soak` is the SoakTime, positive, and `soak_text` it as written ("24h"), for the
// messages. A held finding carries
// evidence_json when `evidence` is set: {"SoakStart", "SoakEnd", "SoakTime", "Release",
// "BundleDigest"}.
GateFinding JudgeSoak(const SoakSubject& subject, const store::SoakState* state,
                      absl::Duration soak, const std::string& soak_text, absl::Time now,
                      bool evidence);

// The Soaked findings of `stage` (the Stage naming it, whose SoakTime applies; nullptr for
// Final) over `over`, one per Space, held or not, read in one query whatever the number of
// Spaces. Final, or a Stage without a usable SoakTime (both refused when the workflow is
// written), fails every Space, saying so.
absl::StatusOr<std::vector<GateFinding>> SoakedFindings(store::Tx& tx,
                                                        const ResolvedChangeOrder& rco,
                                                        const workflow::Stage* stage,
                                                        const std::vector<SoakSubject>& over,
                                                        absl::Time now, bool evidence);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_SOAK_GATE_H_
