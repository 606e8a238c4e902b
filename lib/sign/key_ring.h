// The keys cubd signs with and trusts, as one consistent snapshot: what signs a new artifact's
// evidence and what a signature found in a registry is checked against.
//
// Key rotation: cubd signs with one key at a time (its current key); every key it signed with
// before stays trusted, so evidence signed by an earlier key still verifies, until an admin
// revokes it (`cub key revoke`). Keys an admin adds (`cub key trust`) verify but never sign.
//
// Contract of every KeyRing:
// - Snapshot() returns a snapshot that never changes; a later trust, revoke or key change gives
//   a new snapshot with a different `generation`. Verification results may be cached per
//   (artifact digest, generation), and such a cache is right until the generation changes.
// - `signing` is empty while cubd has no signing key yet (a Secret not mounted yet): nothing
//   can be signed then, and verification reports SigningKeyNotReady.
// - Thread-safe: Snapshot() may be called from any thread at once.
#ifndef CUB_LIB_SIGN_KEY_RING_H_
#define CUB_LIB_SIGN_KEY_RING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/sign/signing_key.h"

namespace cub::sign {

struct TrustedPublicKey {
  std::string key_id;      // as SigningKey::KeyId() spells it
  std::string public_pem;  // SubjectPublicKeyInfo PEM of an Ed25519 key
};

struct KeySnapshot {
  int64_t generation = 0;
  std::optional<SigningKey> signing;
  // Why `signing` is empty, for messages (e.g. the key file cubd waits for); empty otherwise.
  std::string signing_missing;
  // Not revoked; includes the current signing key's public half when there is one.
  std::vector<TrustedPublicKey> trusted;

  // The trusted key with this id, or null.
  const TrustedPublicKey* Find(const std::string& key_id) const {
    for (const TrustedPublicKey& k : trusted) {
      if (k.key_id == key_id) return &k;
    }
    return nullptr;
  }
};

class KeyRing {
 public:
  virtual ~KeyRing() = default;
  // Errors: UNAVAILABLE when the trusted set cannot be read (the database is down); callers
  // report that, never an empty set.
  virtual absl::StatusOr<std::shared_ptr<const KeySnapshot>> Snapshot() = 0;
  // Called after this process trusted or revoked a key, so that the next Snapshot() reads the
  // change rather than a cached set. A no-op for rings that read nothing.
  virtual void Refresh() {}
};

// Prefix of the FAILED_PRECONDITION that signing without a key gets, as the Release
// verification reason spells it.
inline constexpr char kSigningKeyNotReady[] = "SigningKeyNotReady";

// The key to sign with now: `s.signing`, or FAILED_PRECONDITION "SigningKeyNotReady: <why>"
// (s.signing_missing) when there is none.
absl::StatusOr<SigningKey> SigningKeyOf(const KeySnapshot& s);

// A KeyRing that never changes: one signing key (or none) trusted alone, plus `extra`.
// For tools and unit tests; cubd's ring reads the database (lib/ops/key_ring_db.h).
std::shared_ptr<KeyRing> FixedKeyRing(std::optional<SigningKey> signing,
                                      std::vector<TrustedPublicKey> extra = {});

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_KEY_RING_H_
