// Taking an aborted ChangeOrder back out of Spaces: `cub variant demote`.
//
// Each Unit the ChangeOrder's start Tag marks in a Space goes back to that revision in one new
// revision (however many the promotion wrote), and the ChangeOrder's restore Tag
// (NAME-co-restore) marks what was written. A Unit the restore Tag already marks is left alone,
// so a demote that stopped partway is simply run again, and a Unit edited forward since its
// restore keeps that work. A dry run names the revisions after the change's end that a
// restore would drop. Requires the abort: undoing a ChangeOrder nobody has called off would
// race whoever is still promoting it.
#ifndef CUB_LIB_OPS_DEMOTE_H_
#define CUB_LIB_OPS_DEMOTE_H_

#include "absl/status/statusor.h"
#include "cub/v1/changeorder.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// The restore Tag's slug for a ChangeOrder slug.
std::string RestoreTagSlug(const std::string& change_order_slug);

absl::StatusOr<v1::DemoteResponse> Demote(store::ConnectionPool& db, const Principal& p,
                                          const v1::DemoteRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_DEMOTE_H_
