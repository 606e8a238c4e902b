// Use cases on release Targets and Releases.
//
// Publishing bundles every releasable Unit of a Space at the revision a selector names, signs a
// provenance record naming the bundle digest (an in-toto statement in a DSSE envelope, with the
// server's key) and stores both, Pending delivery, in one transaction. After it commits, the
// outbox (lib/ops/delivery.h) verifies the stored bundle against the signed record and hands
// the files to the Space's Target. A GitOps operator then reports the Release's live status,
// which the Healthy gate and the deployment history read.
#ifndef CUB_LIB_OPS_RELEASES_H_
#define CUB_LIB_OPS_RELEASES_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "cub/v1/space.pb.h"
#include "lib/ops/principal.h"
#include "lib/sign/signing_key.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"
#include "lib/targets/provider.h"

namespace cub::ops {

// What publishing needs of the server: what the Targets' providers need (a directory of its
// own, where Git Targets keep clones and locks; credentials; the commit signer), and the key
// ring, targets.keys, whose current key signs Releases and records and whose trusted keys
// verify them (lib/ops/release_keys.h).
struct ReleaseEnv {
  targets::ProviderEnv targets;
};

// In-toto predicate types of the records cubd signs.
inline constexpr char kProvenancePredicate[] = "https://cub.dev/release-provenance/v1";
inline constexpr char kDeploymentPredicate[] = "https://cub.dev/deployment/v1";
inline constexpr char kApprovalPredicate[] = "https://cub.dev/approval/v1";

// The public half of the key Releases and records are signed with now; for any caller.
// FAILED_PRECONDITION SigningKeyNotReady while cubd has none.
absl::StatusOr<v1::PublicKey> GetPublicKey(const ReleaseEnv& env);

absl::StatusOr<v1::Target> CreateTarget(store::ConnectionPool& db, const Principal& p,
                                        const v1::CreateTargetRequest& req);
absl::StatusOr<v1::Target> GetTarget(store::ConnectionPool& db, const Principal& p,
                                     const v1::GetTargetRequest& req);
absl::StatusOr<v1::ListTargetsResponse> ListTargets(store::ConnectionPool& db, const Principal& p,
                                                    const v1::ListTargetsRequest& req);
absl::StatusOr<v1::Target> UpdateTarget(store::ConnectionPool& db, const Principal& p,
                                        const v1::UpdateTargetRequest& req);
absl::Status DeleteTarget(store::ConnectionPool& db, const Principal& p,
                          const v1::DeleteTargetRequest& req);

// Refused, changing nothing: a Space with no Target, a revision with validation errors, a
// ChangeOrder the Space has not taken, a release Prerequisite that does not hold, a stored
// bundle (for --release N) that no longer matches its signed record. A dry run returns what
// would be bundled, unsigned and unnumbered. Otherwise the Release is recorded, then delivered
// (DeliverNow, waiting up to 30 s) and returned with its DeliveryState: a Target that fails
// leaves it Failed (retried by the delivery workers), which is no error of the publish.
absl::StatusOr<v1::Release> PublishRelease(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const Principal& p,
                                           const v1::PublishReleaseRequest& req);
// The same, with `still_wanted` run in the publish's transaction once it holds the Space's
// release-number lock (publishes in one Space take turns), before anything is recorded: an error
// from it is returned and nothing is published. The engine checks there that AutoRelease still
// applies.
using PublishCheck = std::function<absl::Status(store::Tx&, const v1::Space&)>;
absl::StatusOr<v1::Release> PublishRelease(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const Principal& p, const v1::PublishReleaseRequest& req,
                                           const PublishCheck& still_wanted);
absl::StatusOr<v1::Release> GetRelease(store::ConnectionPool& db, const Principal& p,
                                       const v1::GetReleaseRequest& req);
absl::StatusOr<v1::ListReleasesResponse> ListReleases(store::ConnectionPool& db, const Principal& p,
                                                      const v1::ListReleasesRequest& req);
// Needs the reporter role. The first Healthy report of a deployment gets a signed deployment
// record; the Stage of the Release's ChangeOrder is advanced.
absl::StatusOr<v1::Release> SetReleaseStatus(store::ConnectionPool& db, const ReleaseEnv& env,
                                             const Principal& p,
                                             const v1::SetReleaseStatusRequest& req);
absl::StatusOr<v1::ReleaseHistoryResponse> ReleaseHistory(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::ReleaseHistoryRequest& req);
// Checks the provenance signature with the keys cubd trusts (the one that signs now, earlier
// ones until revoked), that it names this Release, and that
// the bundle as stored now hashes to the digest it signed; and each signed promotion record of
// the Release's ChangeOrder in its Space (lib/ops/promotion_records.h).
absl::StatusOr<v1::VerifyReleaseResponse> VerifyRelease(store::ConnectionPool& db,
                                                        const ReleaseEnv& env, const Principal& p,
                                                        const v1::VerifyReleaseRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASES_H_
