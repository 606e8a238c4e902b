// ChangeSets: a named, bounded change within one Space.
//
// Creating one makes its two Tags, NAME-start and NAME-end. A write that names an open
// ChangeSet opens it on the Unit: the start Tag marks the Unit's revision before the change
// and the Unit then accepts only writes that name it, until it is taken out ("-") or the
// ChangeSet is closed, which marks each such Unit's head with the end Tag.
#ifndef CUB_LIB_OPS_CHANGE_SETS_H_
#define CUB_LIB_OPS_CHANGE_SETS_H_

#include <string>

#include "absl/status/statusor.h"
#include "cub/v1/unit.pb.h"
#include "lib/ops/access.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

absl::StatusOr<v1::ChangeSet> CreateChangeSet(store::ConnectionPool& db, const Principal& p,
                                              const v1::CreateChangeSetRequest& req);
absl::StatusOr<v1::ChangeSet> GetChangeSet(store::ConnectionPool& db, const Principal& p,
                                           const v1::GetChangeSetRequest& req);
absl::StatusOr<v1::ListChangeSetsResponse> ListChangeSets(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::ListChangeSetsRequest& req);
absl::StatusOr<v1::ChangeSet> CloseChangeSet(store::ConnectionPool& db, const Principal& p,
                                             const v1::CloseChangeSetRequest& req);

// The ChangeSet `ref` ("SPACE/NAME", or "NAME" in `space`), if the caller has `access` to
// its Space.
absl::StatusOr<v1::ChangeSet> ResolveChangeSet(store::Tx& tx, const Principal& p,
                                               const v1::Space& space, const std::string& ref,
                                               Access access = Access::kRead);

// Settles which ChangeSet a write to `unit` belongs to, given what the request named
// (`ref`: "" for none, "-" to leave, or a ChangeSet): joins or leaves as asked, and refuses a
// write that does not name the open ChangeSet the Unit is in. Returns the ID of the ChangeSet
// the new revision carries ("" for none). Call inside the write's transaction.
absl::StatusOr<std::string> ChangeSetForWrite(store::Tx& tx, const Principal& p,
                                              const v1::Space& space, const v1::Unit& unit,
                                              const std::string& ref);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_CHANGE_SETS_H_
