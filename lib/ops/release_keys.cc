#include "lib/ops/release_keys.h"

#include "lib/sign/ring_verify.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> KeysOf(const ReleaseEnv& env) {
  if (env.targets.keys == nullptr) {
    return absl::InternalError("cubd was set up without a key ring: nothing can be signed");
  }
  return env.targets.keys->Snapshot();
}

absl::StatusOr<sign::SigningKey> SigningKeyOf(const ReleaseEnv& env) {
  CUB_ASSIGN_OR_RETURN(auto keys, KeysOf(env));
  return sign::SigningKeyOf(*keys);
}

absl::StatusOr<std::string> VerifyTrusted(const ReleaseEnv& env, const sign::Envelope& env_json) {
  CUB_ASSIGN_OR_RETURN(auto keys, KeysOf(env));
  return sign::VerifyEnvelopeTrusted(env_json, *keys);
}

}  // namespace cub::ops
