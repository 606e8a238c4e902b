// Checking a DSSE envelope against the keys cubd trusts (a KeySnapshot) rather than against
// one key: what lets Releases and records signed before a key rotation verify until their key
// is revoked.
#ifndef CUB_LIB_SIGN_RING_VERIFY_H_
#define CUB_LIB_SIGN_RING_VERIFY_H_

#include <string>

#include "absl/status/statusor.h"
#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"

namespace cub::sign {

// OK with the key id of the trusted key that made one of `env`'s signatures over
// Pae(payload_type, payload). A signature naming a keyid is checked with the trusted key of that
// id only (DSSE keyids are unauthenticated, but a signature can only verify with the key that
// made it, so the hint just saves work); one without a keyid is tried with every trusted key.
// Errors: Unauthenticated when none verifies, naming each signature's keyid and why: "not a
// trusted key (revoked, or never trusted)" or "does not verify"; and when there are none.
absl::StatusOr<std::string> VerifyEnvelopeTrusted(const Envelope& env, const KeySnapshot& keys);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_RING_VERIFY_H_
