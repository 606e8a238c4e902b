#include "lib/targets/oci_deploy.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "lib/oci/evidence.h"
#include "lib/oci/verify.h"
#include "lib/sign/key_ring.h"
#include "lib/util/status_macros.h"

namespace cub::targets {
namespace {

absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> Keys(const ProviderEnv& env) {
  if (!env.keys) {
    return absl::FailedPreconditionError("OCI target: cubd has no key ring to sign evidence with");
  }
  return env.keys->Snapshot();
}

// Verifies `tag` against `expected`, records the result in `out` and, when Verified, points
// `deploy_tag` at the very manifest judged.
absl::Status VerifyAndDeploy(oci::Registry& registry, const ProviderEnv& env,
                             const sign::KeySnapshot& keys, const oci::Expectation& expected,
                             const std::string& tag, const std::string& deploy_tag,
                             DeliveredRelease* out) {
  oci::Manifest judged;
  oci::Verification v =
      oci::VerifyArtifact(registry, tag, expected, keys, env.verifications.get(), &judged);
  out->verification_reason = v.reason;
  out->verification_message = v.message;
  out->verification_key_id = v.key_id;
  if (!v.digest.empty()) out->artifact_digest = v.digest;
  if (!v.verified()) return absl::OkStatus();
  return registry.PutManifest(deploy_tag, judged.media_type, judged.body).status();
}

}  // namespace

absl::Status PushEvidenceAndDeploy(oci::Registry& registry, const ProviderEnv& env,
                                   const Delivery& d, const oci::Descriptor& built,
                                   const std::string& release_tag, const std::string& deploy_tag,
                                   DeliveredRelease* out) {
  CUB_ASSIGN_OR_RETURN(auto keys, Keys(env));
  if (keys->signing) {
    oci::ArtifactClaims claims{d.space, d.release_num, d.release_id, d.change_order,
                               d.bundle_digest};
    std::string signature = oci::SignArtifact(*keys->signing, built.digest, claims);
    CUB_RETURN_IF_ERROR(oci::PushEvidence(registry, built, signature,
                                          {d.provenance, d.sealed_approvals, d.promotion_records}));
  }
  oci::Expectation expected{d.space, d.release_id, d.change_order, d.approvals_required};
  return VerifyAndDeploy(registry, env, *keys, expected, release_tag, deploy_tag, out);
}

absl::Status DeployEarlier(oci::Registry& registry, const ProviderEnv& env, const Delivery& d,
                           const std::string& earlier_tag, const std::string& deploy_tag,
                           DeliveredRelease* out) {
  CUB_ASSIGN_OR_RETURN(auto keys, Keys(env));
  out->artifact_ref = absl::StrCat(registry.host(), "/", registry.repository(), ":", earlier_tag);
  const Delivery::Earlier& e = d.rollback_of;
  oci::Expectation expected{d.space, e.release_id, e.change_order, e.approvals_required};
  return VerifyAndDeploy(registry, env, *keys, expected, earlier_tag, deploy_tag, out);
}

}  // namespace cub::targets
