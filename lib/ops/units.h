// Use cases on Units, their Revisions and Tags. Writes check the editor role; reads any role.
#ifndef CUB_LIB_OPS_UNITS_H_
#define CUB_LIB_OPS_UNITS_H_

#include "absl/status/statusor.h"
#include "cub/v1/unit.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// Creates the Unit with revision 1 holding `data` (which may be empty). Data of a YAML
// toolchain that does not parse is refused and nothing is written.
absl::StatusOr<v1::UnitWithData> CreateUnit(store::ConnectionPool& db, const Principal& p,
                                            const v1::CreateUnitRequest& req);
absl::StatusOr<v1::UnitWithData> GetUnit(store::ConnectionPool& db, const Principal& p,
                                         const v1::GetUnitRequest& req);
absl::StatusOr<v1::ListUnitsResponse> ListUnits(store::ConnectionPool& db, const Principal& p,
                                                const v1::ListUnitsRequest& req);
// Writes a new revision from `data` or from the revision `restore` names, and/or changes
// labels. Data equal (by DataHash) to the head writes nothing and reports Unchanged.
absl::StatusOr<v1::UpdateUnitResponse> UpdateUnit(store::ConnectionPool& db, const Principal& p,
                                                  const v1::UpdateUnitRequest& req);
absl::Status DeleteUnit(store::ConnectionPool& db, const Principal& p,
                        const v1::DeleteUnitRequest& req);
absl::StatusOr<v1::ListRevisionsResponse> ListRevisions(store::ConnectionPool& db,
                                                        const Principal& p,
                                                        const v1::ListRevisionsRequest& req);
absl::StatusOr<v1::Revision> GetRevision(store::ConnectionPool& db, const Principal& p,
                                         const v1::GetRevisionRequest& req);
absl::StatusOr<v1::TagMark> TagUnit(store::ConnectionPool& db, const Principal& p,
                                    const v1::TagUnitRequest& req);

absl::StatusOr<v1::Tag> CreateTag(store::ConnectionPool& db, const Principal& p,
                                  const v1::CreateTagRequest& req);
absl::StatusOr<v1::TagWithMarks> GetTag(store::ConnectionPool& db, const Principal& p,
                                        const v1::GetTagRequest& req);
absl::StatusOr<v1::ListTagsResponse> ListTags(store::ConnectionPool& db, const Principal& p,
                                              const v1::ListTagsRequest& req);

// The revision number a selector names for `unit`: "" or "HeadRevisionNum", "N", "-N" (N
// before the head), "LastReleasedRevisionNum", "Tag:T", "Tag:SPACE/T", "Before:Tag:T",
// "ChangeSet:C" (where a closed ChangeSet left the Unit), "Before:ChangeSet:C" (where it
// found it); C is "NAME" or "SPACE/NAME".
// The result exists (1..head) or the error says why not.
absl::StatusOr<int64_t> ResolveRevision(store::Tx& tx, const Principal& p, const v1::Space& space,
                                        const v1::Unit& unit, const std::string& selector);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_UNITS_H_
