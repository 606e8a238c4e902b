// The last step of an OCI Target's delivery, after the Release's artifact is in the registry:
// its evidence is pushed beside it (lib/oci/evidence.h), the artifact under the Release's tag is
// verified as the registry holds it (lib/oci/verify.h), and only when Verified is the Space's
// deploy tag moved to it. What GitOps operators pull is the deploy tag (or, for Argo CD
// Applications, the digest cub verified), so nothing unverified is deployed.
//
// A rollback (Delivery::rollback_of) pushes nothing: it verifies the earlier Release's artifact
// under that Release's tag, against what that Release was (its ID, ChangeOrder and approvals),
// and moves the deploy tag back to it.
#ifndef CUB_LIB_TARGETS_OCI_DEPLOY_H_
#define CUB_LIB_TARGETS_OCI_DEPLOY_H_

#include <string>

#include "absl/status/status.h"
#include "lib/oci/registry.h"
#include "lib/targets/provider.h"

namespace cub::targets {

// `built` is the manifest cubd built for `d` and pushed (or found already there) under
// `release_tag`; evidence is signed for it alone, never for whatever else the tag may hold.
// Sets out->verification_* (and artifact_digest to the digest judged). Errors: the registry's
// while pushing the evidence or moving the tag (nothing deployed; the delivery is retried);
// FAILED_PRECONDITION when env.keys is null.
absl::Status PushEvidenceAndDeploy(oci::Registry& registry, const ProviderEnv& env,
                                   const Delivery& d, const oci::Descriptor& built,
                                   const std::string& release_tag, const std::string& deploy_tag,
                                   DeliveredRelease* out);

// A rollback of `d` to d.rollback_of, whose artifact is under `earlier_tag`. Sets
// out->artifact_digest and artifact_ref to it, and out->verification_*.
absl::Status DeployEarlier(oci::Registry& registry, const ProviderEnv& env, const Delivery& d,
                           const std::string& earlier_tag, const std::string& deploy_tag,
                           DeliveredRelease* out);

}  // namespace cub::targets

#endif  // CUB_LIB_TARGETS_OCI_DEPLOY_H_
