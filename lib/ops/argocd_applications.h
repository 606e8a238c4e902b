// The Argo CD Applications of a Release, for `cub release applications` (kubectl apply): one per
// cluster of the Release's Target (its clusters param, lib/argocd/application.h), pointing at
// exactly that Release: a Git Target's Applications at the Release's commit and directory, an
// OCI Target's at the artifact's digest. (The Applications a Git Target writes into its own
// argocd/ directory follow the branch instead; docs/design.md says why.)
#ifndef CUB_LIB_OPS_ARGOCD_APPLICATIONS_H_
#define CUB_LIB_OPS_ARGOCD_APPLICATIONS_H_

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::ops {

// Needs read access to the Space and to the Target's Space. Release 0: the Space's newest
// Delivered Release. Held: the clusters the Release's delivery left alone (opt-in rule).
// Errors: NOT_FOUND for the Space or Release; FAILED_PRECONDITION when the Release's Target
// names no clusters, is a Directory Target, or the Release has no commit or artifact digest
// yet (not delivered), each naming what is missing.
absl::StatusOr<v1::ReleaseApplicationsResponse> ReleaseApplications(
    store::ConnectionPool& db, const Principal& p, const v1::ReleaseApplicationsRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ARGOCD_APPLICATIONS_H_
