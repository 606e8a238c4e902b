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

// THE HOOK after a push (oci-evidence fills it in lib/targets/oci_deploy.cc): push the
// evidence beside the artifact (lib/oci/evidence.h), verify it as read back from the registry
// with env.keys (lib/oci/verify.h), fill out->verification_{reason,message,key_id}, and move
// the deploy tag (MoveDeployTag) only when Verified; a refusal is the Deliver's error, so the
// Release stays Failed with the reason and is retried. For now it moves the deploy tag
// unconditionally and leaves the verification empty.
absl::Status PushEvidenceVerifyAndDeploy(oci::Registry& registry, const OciPushed& pushed,
                                         const ProviderEnv& env, DeliveredRelease* out);

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
