// The step after an OCI push (lib/targets/oci_internal.h): the evidence is pushed beside the
// artifact (lib/oci/evidence.h), the artifact under the Release's tag is verified as the
// registry holds it (lib/oci/verify.h), and only when Verified is the Space's deploy tag moved
// to it. What GitOps operators pull is the deploy tag (or, for Argo CD Applications, the digest
// cub verified), so nothing unverified is deployed.
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/oci/artifact.h"
#include "lib/oci/evidence.h"
#include "lib/oci/verify.h"
#include "lib/sign/key_ring.h"
#include "lib/targets/oci_internal.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> Keys(const ProviderEnv& env) {
  if (!env.keys) {
    return absl::FailedPreconditionError("OCI target: cubd has no key ring to sign evidence with");
  }
  return env.keys->Snapshot();
}

// The digest of the artifact cubd builds for `d` (the same bytes Push pushes).
absl::StatusOr<std::string> BuiltDigest(const Delivery& d) {
  std::vector<oci::LayerFile> files;
  files.reserve(d.files.size());
  for (const BundleFile& f : d.files) files.push_back({f.name, f.content});
  CUB_ASSIGN_OR_RETURN(oci::ReleaseArtifact a,
                       oci::BuildReleaseArtifact(ReleaseInfoOf(d), std::move(files)));
  return a.manifest_digest;
}

// Verifies `pushed.tag` against `expected`, records the result in `out` and, when Verified,
// points the deploy tag at the very manifest judged.
absl::Status VerifyAndDeploy(oci::Registry& registry, const ProviderEnv& env,
                             const sign::KeySnapshot& keys, const oci::Expectation& expected,
                             OciPushed pushed, DeliveredRelease* out) {
  oci::Manifest judged;
  oci::Verification v =
      oci::VerifyArtifact(registry, pushed.tag, expected, keys, env.verifications.get(), &judged);
  out->verification_reason = v.reason;
  out->verification_message = v.message;
  out->verification_key_id = v.key_id;
  if (!v.digest.empty()) out->artifact_digest = v.digest;
  if (!v.verified()) return absl::OkStatus();
  pushed.manifest_digest = judged.digest;
  pushed.manifest = std::move(judged.body);
  return MoveDeployTag(registry, pushed);
}

}  // namespace

oci::ReleaseInfo ReleaseInfoOf(const Delivery& d) {
  oci::ReleaseInfo info;
  info.space = d.space;
  info.release_num = d.release_num;
  info.release_id = d.release_id;
  info.change_order = d.change_order;
  info.bundle_digest = d.bundle_digest;
  info.created = d.published_at;
  return info;
}

std::optional<std::string> ArtifactSpace(const std::string& manifest) {
  absl::StatusOr<oci::ImageManifest> m = oci::ParseImageManifest(manifest);
  if (!m.ok() || m->config_media_type != oci::kReleaseConfigMediaType) return std::nullopt;
  auto it = m->annotations.find(oci::kAnnotationSpace);
  if (it == m->annotations.end()) return std::nullopt;
  return it->second;
}

absl::Status MoveDeployTag(oci::Registry& registry, const OciPushed& pushed) {
  const std::string& space = pushed.delivery->space;
  CUB_ASSIGN_OR_RETURN(std::optional<oci::Manifest> current,
                       registry.GetManifest(pushed.deploy_tag));
  if (current) {
    if (current->digest == pushed.manifest_digest) return absl::OkStatus();
    std::optional<std::string> owner = ArtifactSpace(current->body);
    if (owner != space) {
      return absl::FailedPreconditionError(
          absl::StrCat("OCI target ", registry.host(), "/", registry.repository(), ": the tag ",
                       JsonQuote(pushed.deploy_tag), " of space ", space, " holds ",
                       owner ? absl::StrCat("an artifact of space ", JsonQuote(*owner))
                             : std::string("something cub did not push"),
                       "; cub leaves it alone (give the spaces repositories of their own)"));
    }
  }
  return registry.PutManifest(pushed.deploy_tag, oci::kOciManifest, pushed.manifest).status();
}

absl::Status PushEvidenceVerifyAndDeploy(oci::Registry& registry, const OciPushed& pushed,
                                         const ProviderEnv& env, DeliveredRelease* out) {
  const Delivery& d = *pushed.delivery;
  CUB_ASSIGN_OR_RETURN(auto keys, Keys(env));
  if (keys->signing) {
    // Evidence is signed for the artifact cubd builds for this Release, never for whatever
    // else its tag may hold now (found earlier, but changed since): that is verified, and
    // refused, as it is.
    CUB_ASSIGN_OR_RETURN(std::string built, BuiltDigest(d));
    if (built == pushed.manifest_digest) {
      oci::Descriptor subject{
          oci::kOciManifest, built, static_cast<int64_t>(pushed.manifest.size()), "", {}};
      oci::ArtifactClaims claims{d.space, d.release_num, d.release_id, d.change_order,
                                 d.bundle_digest};
      CUB_RETURN_IF_ERROR(
          oci::PushEvidence(registry, subject, oci::SignArtifact(*keys->signing, built, claims),
                            {d.provenance, d.sealed_approvals, d.promotion_records}));
    }
  }
  oci::Expectation expected{d.space, d.release_id, d.change_order, d.approvals_required};
  return VerifyAndDeploy(registry, env, *keys, expected, pushed, out);
}

absl::Status VerifyEarlierAndDeploy(oci::Registry& registry, const OciPushed& earlier,
                                    const ProviderEnv& env, DeliveredRelease* out) {
  CUB_ASSIGN_OR_RETURN(auto keys, Keys(env));
  const Delivery::Earlier& e = earlier.delivery->rollback_of;
  oci::Expectation expected{earlier.delivery->space, e.release_id, e.change_order,
                            e.approvals_required};
  return VerifyAndDeploy(registry, env, *keys, expected, earlier, out);
}

}  // namespace cub::targets::internal
