// Upgrading a Unit: merging what its upstream Unit changed into it, structurally and 3-way
// (lib/config/merge.h), and showing the path-level difference between two revisions.
//
// The upstream range runs from the merge cursor of the Unit's UpgradeUnit Link (or an explicit
// --merge-base) to the upstream head (or --merge-end). Each upstream revision lands as a
// downstream revision of its own recording where it came from (replay), or the whole range as
// one (squash). Changes the merge withholds (protected paths, paths the Unit removed, lists
// both sides edited) are recorded as Conflicts on the revision written. The Link's cursor then
// moves to the end of the range. Each upstream revision is parsed and diffed once.
#ifndef CUB_LIB_OPS_UPGRADE_H_
#define CUB_LIB_OPS_UPGRADE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/unit.pb.h"
#include "lib/config/merge.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// The upgrade part of UpdateUnit, inside its transaction. `change_set_id` is the ChangeSet the
// new revisions carry. Fills out->revisions (and out->revision with the last); writes nothing
// when the range is empty or changes nothing (out->unchanged).
absl::Status Upgrade(store::Tx& tx, const Principal& p, const v1::Space& space,
                     const v1::Unit& unit, const v1::UpdateUnitRequest& req,
                     const std::string& change_set_id, v1::UpdateUnitResponse* out);

// `--revert N..M` (or `N`), inside UpdateUnit's transaction: takes out what revisions N..M
// changed and keeps what came after them, by merging their change, inverted (from revision M
// back to N-1), into the head, 3-way, by the merge rule of an upgrade: where a later revision
// also changed a path the range changed, the revert's value applies unless the path is
// protected (then it is withheld and recorded as a Conflict). Writes one revision, or none.
absl::Status Revert(store::Tx& tx, const Principal& p, const v1::Space& space, const v1::Unit& unit,
                    const v1::UpdateUnitRequest& req, const std::string& change_set_id,
                    v1::UpdateUnitResponse* out);

// The JSON array of Conflict objects a revision records for what a merge withheld.
std::string ConflictsJson(const std::vector<config::Conflict>& conflicts);

// INVALID_ARGUMENT naming the first path that is not a valid merge path.
absl::Status ValidateProtectedPaths(const google::protobuf::RepeatedPtrField<std::string>& paths);

absl::StatusOr<v1::DiffUnitResponse> DiffUnit(store::ConnectionPool& db, const Principal& p,
                                              const v1::DiffUnitRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_UPGRADE_H_
