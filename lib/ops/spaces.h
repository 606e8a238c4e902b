// Use cases on Spaces and their permissions. Each runs in one transaction and checks the
// caller's role first; a refusal changes nothing.
#ifndef CUB_LIB_OPS_SPACES_H_
#define CUB_LIB_OPS_SPACES_H_

#include "absl/status/statusor.h"
#include "cub/v1/space.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// Creates the Space (and its component if new) and makes the caller its admin.
absl::StatusOr<v1::Space> CreateSpace(store::ConnectionPool& db, const Principal& p,
                                      const v1::CreateSpaceRequest& req);
absl::StatusOr<v1::Space> GetSpace(store::ConnectionPool& db, const Principal& p,
                                   const v1::GetSpaceRequest& req);
absl::StatusOr<v1::ListSpacesResponse> ListSpaces(store::ConnectionPool& db, const Principal& p,
                                                  const v1::ListSpacesRequest& req);
absl::StatusOr<v1::Space> UpdateSpace(store::ConnectionPool& db, const Principal& p,
                                      const v1::UpdateSpaceRequest& req);
// Refused while variants or Links of other Spaces depend on it.
absl::Status DeleteSpace(store::ConnectionPool& db, const Principal& p,
                         const v1::DeleteSpaceRequest& req);
// Grant/revoke need the admin role on the Space.
absl::StatusOr<v1::Permission> Grant(store::ConnectionPool& db, const Principal& p,
                                     const v1::GrantRequest& req);
absl::StatusOr<v1::Permission> Revoke(store::ConnectionPool& db, const Principal& p,
                                      const v1::GrantRequest& req);
absl::StatusOr<v1::ListPermissionsResponse> ListPermissions(store::ConnectionPool& db,
                                                            const Principal& p,
                                                            const v1::ListPermissionsRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_SPACES_H_
