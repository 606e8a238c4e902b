// The OCI provider's pieces (lib/targets/oci.cc), and the step after a push that
// lib/targets/oci_deploy.cc implements. Internal to lib/targets.
//
// An OCI Target (params: repository=HOST[:PORT]/PATH, insecure=true|false, credentials=FILE,
// ca-file=FILE) pushes each Release as the artifact of lib/oci/artifact.h, tagged
// "<space>-r<N>", and then points the Space's deploy tag "<space>" at it: that tag is what a
// Flux OCIRepository or an Argo CD Application follows.
#ifndef CUB_LIB_TARGETS_OCI_INTERNAL_H_
#define CUB_LIB_TARGETS_OCI_INTERNAL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/oci/artifact.h"
#include "lib/oci/registry.h"
#include "lib/targets/provider.h"

namespace cub::targets::internal {

// The params an OCI Target accepts, for ValidateParams' list of known params.
const std::vector<std::string>& OciParamNames();
// Checks them (called by ValidateParams after the known-param check): repository parses
// (lib/oci/registry.h), insecure is "true" or "false" and true only for a loopback host
// (127.0.0.0/8, [::1], localhost), credentials and ca-file are plain file names, ca-file not
// with insecure. INVALID_ARGUMENT naming the param.
absl::Status ValidateOciParams(const std::map<std::string, std::string>& params);
std::unique_ptr<Provider> MakeOciProvider(const std::map<std::string, std::string>& params,
                                          const ProviderEnv& env);

// A Release's artifact, just pushed (or found pushed by an earlier call).
struct OciPushed {
  const Delivery* delivery = nullptr;
  std::string manifest_digest;
  std::string manifest;    // its bytes, as the registry holds them
  std::string tag;         // "<space>-r<N>"
  std::string deploy_tag;  // "<space>"
  std::string ref;         // "HOST/PATH:<space>-r<N>"
};

// The step after a push (lib/targets/oci_deploy.cc): pushes the evidence beside the artifact
// (lib/oci/evidence.h) when the tag holds the artifact cubd builds for the Release, verifies
// what the tag holds as read back from the registry with env.keys (lib/oci/verify.h), fills
// out->verification_{reason,message,key_id} (and artifact_digest with the digest judged), and
// moves the deploy tag (MoveDeployTag) only when Verified. A refusal is no error of Deliver: the
// Release's result carries it, and lib/ops/delivery.cc records the Release Failed with the
// reason (retried later). Errors: the registry's while pushing evidence or moving the tag.
absl::Status PushEvidenceVerifyAndDeploy(oci::Registry& registry, const OciPushed& pushed,
                                         const ProviderEnv& env, DeliveredRelease* out);

// A rollback (Delivery::rollback_of): `earlier` names the earlier Release's tag; nothing is
// pushed. Verifies it against what that Release was (its ID, ChangeOrder, approvals) and moves
// the deploy tag back to it when Verified, as above.
absl::Status VerifyEarlierAndDeploy(oci::Registry& registry, const OciPushed& earlier,
                                    const ProviderEnv& env, DeliveredRelease* out);

// What the artifact of `d` says of it (lib/oci/artifact.h): the one mapping Push and the
// evidence step both build from, so they agree on the digest.
oci::ReleaseInfo ReleaseInfoOf(const Delivery& d);

// Points `pushed.deploy_tag` at the pushed manifest (PUT of the same bytes). Refuses
// (FAILED_PRECONDITION) when the tag holds an artifact of another Space, or one cub did not
// make: the tag names of two Spaces can meet ("a-r1" is Space "a-r1"'s deploy tag and Space
// "a"'s first Release), and cub never overwrites what is not the Space's own.
absl::Status MoveDeployTag(oci::Registry& registry, const OciPushed& pushed);

// The Space an artifact manifest names (cub.dev/space), or nullopt when `manifest` is not an
// artifact cub made.
std::optional<std::string> ArtifactSpace(const std::string& manifest);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_OCI_INTERNAL_H_
