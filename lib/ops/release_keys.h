// The keys a ReleaseEnv signs and verifies with: its key ring (env.targets.keys,
// lib/sign/key_ring.h), asked afresh at each use, so a key that appears after cubd started
// (SigningKeyNotReady until then), a rotation and a revocation all take effect without a
// restart of anything that holds the env.
#ifndef CUB_LIB_OPS_RELEASE_KEYS_H_
#define CUB_LIB_OPS_RELEASE_KEYS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lib/ops/releases.h"
#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"

namespace cub::ops {

// The ring's snapshot; INTERNAL when `env` has no ring, UNAVAILABLE when it cannot be read.
absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> KeysOf(const ReleaseEnv& env);

// The key to sign with now; FAILED_PRECONDITION "SigningKeyNotReady: ..." while there is none.
absl::StatusOr<sign::SigningKey> SigningKeyOf(const ReleaseEnv& env);

// `env_json` signed by a key the ring trusts now: OK with that key's id, or the errors of
// sign::VerifyEnvelopeTrusted (UNAUTHENTICATED, naming each signature's keyid) and KeysOf.
absl::StatusOr<std::string> VerifyTrusted(const ReleaseEnv& env, const sign::Envelope& env_json);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_KEYS_H_
