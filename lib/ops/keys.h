// The trusted keys (`cub key list | trust | revoke`, KeyService): which public keys cubd
// accepts signatures from on Releases, records and OCI evidence (lib/sign/key_ring.h).
//
// Who may do what: any authenticated caller lists them (public keys are no secret). Trusting
// and revoking need a server admin: a trusted key's signatures deploy into every Space. Both are
// recorded as events (KeyTrusted, KeyRevoked) that name no Space, so only admins see them.
//
// Refusals, each naming the field: a PEM that is not exactly one Ed25519 public key
// (SubjectPublicKeyInfo; a private key is refused and not stored), a key already recorded (a
// revoked one is never trusted again), an unknown or malformed key id, a key revoked already,
// and revoking the key this cubd signs with now (rotate first: start cubd with a new
// --signing-key, then revoke the old one).
#ifndef CUB_LIB_OPS_KEYS_H_
#define CUB_LIB_OPS_KEYS_H_

#include "absl/status/statusor.h"
#include "cub/v1/key.pb.h"
#include "lib/ops/principal.h"
#include "lib/sign/key_ring.h"
#include "lib/store/pool.h"

namespace cub::ops {

inline constexpr char kKeyTrustedEvent[] = "KeyTrusted";
inline constexpr char kKeyRevokedEvent[] = "KeyRevoked";

// Oldest first; revoked ones too with All. Current marks the key `ring` signs with now.
absl::StatusOr<v1::ListKeysResponse> ListKeys(store::ConnectionPool& db, sign::KeyRing& ring,
                                              const Principal& p, const v1::ListKeysRequest& req);

// Records the key with origin Trusted, then Refresh()es `ring`.
absl::StatusOr<v1::TrustedKey> TrustKey(store::ConnectionPool& db, sign::KeyRing& ring,
                                        const Principal& p, const v1::TrustKeyRequest& req);

// Records the revocation, then Refresh()es `ring`: from then on nothing signed by the key
// verifies (a Release it signed is not delivered, `cub release verify` fails).
absl::StatusOr<v1::TrustedKey> RevokeKey(store::ConnectionPool& db, sign::KeyRing& ring,
                                         const Principal& p, const v1::RevokeKeyRequest& req);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_KEYS_H_
