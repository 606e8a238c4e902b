// A ChangeWorkflow's stages and gates as they apply to one ChangeOrder: which in-scope Spaces
// each Stage holds, and what its prerequisites find over a set of Spaces (gate_report.h).
//
// Gates read current state every time (nothing is cached from an earlier evaluation), with a
// fixed number of queries per evaluation whatever the number of Spaces.
#ifndef CUB_LIB_OPS_GATES_H_
#define CUB_LIB_OPS_GATES_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gate_report.h"
#include "lib/store/spaces.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

// Members of each Stage of the ChangeOrder's workflow, in Stage order: the in-scope Spaces its
// WhereSpace selects. Empty when the ChangeOrder has no workflow.
absl::StatusOr<std::vector<std::vector<v1::Space>>> StageMembers(store::Tx& tx,
                                                                 const ResolvedChangeOrder& rco);

// StageMembers by name (ID and slug), in the same order. What Explain, a refused promotion and
// the progress counts read: they need whole Spaces only for the Stages whose members a gate is
// evaluated over, which they read with SpacesNamed.
using StageNames = std::vector<std::vector<store::SpaceName>>;
absl::StatusOr<StageNames> StageMemberNames(store::Tx& tx, const ResolvedChangeOrder& rco);

// The names of every Space in `rco`'s scope, by slug: read from the scope as stored while the
// ChangeOrder's version is the one `rco` holds, else from the list it holds.
absl::StatusOr<std::vector<store::SpaceName>> InScopeNames(store::Tx& tx,
                                                           const ResolvedChangeOrder& rco);

// The whole Spaces of `names`, in the same order (by slug); a Space deleted since it was named is
// left out.
absl::StatusOr<std::vector<v1::Space>> SpacesNamed(store::Tx& tx,
                                                   const std::vector<store::SpaceName>& names);

// The Spaces of `names` as EvaluateGates reads them with `prerequisites` of `wf`: whole
// where a Space has taken the change (in `resolved`) and a custom (CEL) prerequisite, which
// reads the whole Space, is among them; by name alone (ID and slug) otherwise, all that the
// built-in and attestation gates and a "has not taken the change" finding use. In `names`'
// order; a Space read whole that was deleted since it was named is left out.
absl::StatusOr<std::vector<v1::Space>> GatedSpaces(store::Tx& tx,
                                                   const std::vector<store::SpaceName>& names,
                                                   const std::set<std::string>& resolved,
                                                   const workflow::Workflow& wf,
                                                   const std::vector<std::string>& prerequisites);

// What `rco`'s gates are evaluated with.
struct GateContext {
  const ResolvedChangeOrder* rco = nullptr;
  std::set<std::string> resolved;  // Spaces that have taken the change (the base included)
  absl::Time now;
  // Also report the findings that hold, each with its evidence (for the promotion record).
  bool evidence = false;
};

// What `prerequisites` (of Stage `stage`, "" for Final) find over `over`: one finding per
// (prerequisite, Space) that does not hold, each message starting with `prefix` ("unable to
// promote to stage 'prod'"), and with ctx.evidence one per pair that holds. Having taken the
// change is checked first, whatever the list says (kind Taken).
absl::StatusOr<GateReport> EvaluateGates(store::Tx& tx, const GateContext& ctx,
                                         const std::string& stage,
                                         const std::vector<std::string>& prerequisites,
                                         const std::vector<v1::Space>& over,
                                         const std::string& prefix);

// EvaluateGates' failure messages; empty when everything holds.
absl::StatusOr<std::vector<std::string>> GateFailures(store::Tx& tx, const GateContext& ctx,
                                                      const std::vector<std::string>& prerequisites,
                                                      const std::vector<v1::Space>& over,
                                                      const std::string& prefix);

// What holds `rco` from entering Stage `stage` (an index of `members`, StageMembers' result):
// the gates of every Stage up to it, each over the Stage before (the first over the base),
// each message starting "unable to promote to stage 'NAME'" (the target's name); a finding's
// `stage` is the Stage whose gate it is.
absl::StatusOr<GateReport> EntryGates(store::Tx& tx, const ResolvedChangeOrder& rco,
                                      const std::vector<std::vector<v1::Space>>& members, int stage,
                                      const std::set<std::string>& resolved, bool evidence = false);

// EntryGates over Stage members by name: the members of the Stages before `stage` are read as
// GatedSpaces reads them (whole only for a CEL gate, one statement per Stage), those of
// `stage` itself not at all.
absl::StatusOr<GateReport> EntryGates(store::Tx& tx, const ResolvedChangeOrder& rco,
                                      const StageNames& members, int stage,
                                      const std::set<std::string>& resolved, bool evidence = false);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_GATES_H_
