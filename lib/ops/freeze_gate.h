// The freeze gate: whether a freeze in force covers a Space something is to be promoted or
// published into. Promote (lib/ops/promote.cc) and PublishRelease (lib/ops/releases.cc) both
// ask here, for typed, queued and automatic promotions, AutoRelease and rollbacks alike.
//
// The Spaces a freeze covers:
//   - with a ChangeWorkflow and Stages: the Spaces those Stages' WhereSpace select;
//   - with a ChangeWorkflow alone: the Spaces any of its Stages selects;
//   - with neither: every Space.
// The workflow is read as it is now (a Stage since removed from it covers nothing).
//
// Only Force with a reason, by a caller holding the admin role on every Space a freeze holds,
// passes it; the pass is recorded as a FreezeOverridden event (and, for promotions, in the
// ChangeOrder's PromotionOverrides with the other gates forced).
#ifndef CUB_LIB_OPS_FREEZE_GATE_H_
#define CUB_LIB_OPS_FREEZE_GATE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/gate_report.h"
#include "lib/ops/principal.h"
#include "lib/store/events.h"
#include "lib/store/spaces.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// One finding of kind Freeze per (freeze in force at `now`, Space of `spaces` it covers), none
// held: gate = the freeze's slug, needs "freeze 'xmas' (platform/xmas) lifted: <reason>",
// earliest = the end of its window (unset for one in force until deleted), message "<prefix>:
// <noun> 'prod-eu' is frozen by freeze 'xmas' in space 'platform' (reason: year-end) until
// 2027-01-02T00:00:00Z". `noun` is "Variant" for a promotion's targets, "Space" for a publish.
absl::StatusOr<GateReport> FreezeFindings(store::Tx& tx, const std::vector<v1::Space>& spaces,
                                          absl::Time now, const std::string& prefix,
                                          const std::string& noun);

// The same over Spaces by name (all a freeze reads of them).
absl::StatusOr<GateReport> FreezeFindings(store::Tx& tx,
                                          const std::vector<store::SpaceName>& spaces,
                                          absl::Time now, const std::string& prefix,
                                          const std::string& noun);

// OK when `p` holds the admin role on every Space `frozen` names; otherwise PERMISSION_DENIED
// naming the freeze and the Space ("Force needs the admin role on space 'prod-eu' to pass
// freeze 'xmas' there: ...").
absl::Status CheckFreezeOverride(store::Tx& tx, const Principal& p, const GateReport& frozen);

// The FreezeOverridden event of a forced pass, built on `base` (the kind, message and details
// are set here): one for all of `frozen`'s findings, naming each freeze and Space and `reason`.
store::NewEvent FreezeOverriddenEvent(store::NewEvent base, const GateReport& frozen,
                                      const std::string& reason);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_FREEZE_GATE_H_
