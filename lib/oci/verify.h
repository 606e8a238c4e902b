// Verification of a Release's artifact in its registry, before cubd deploys it (moves the Space's
// deploy tag to it): the evidence of lib/oci/evidence.h is read from the registry, not from
// cubd's database, and checked against what the deploy expects.
//
// The checks, in order; the first that fails decides the reason:
//   SigningKeyNotReady   cubd has no signing key yet (KeySnapshot::signing empty).
//   RegistryUnavailable  the registry cannot be read (unreachable, refused, 5xx), or the
//                        reference names no artifact.
//   SignatureMissing     no signature artifact refers to the manifest.
//   SignatureInvalid     no signature is by a trusted key (revoked or unknown) over an in-toto
//                        statement of kArtifactPredicate whose subject is this manifest digest.
//   ProvenanceMismatch   the signed claims or the provenance (which must be signed by a trusted
//                        key, of the provenance predicate) name another Space, ChangeOrder,
//                        Release, or a bundle digest other than the one recomputed from the
//                        artifact's layer; or there is no provenance.
//   ApprovalsMissing     a release gate requires approvals, and there are no sealed approvals
//                        signed by a trusted key naming this Release, bundle and ChangeOrder in
//                        which every requirement has its count of counted Pass votes (and no
//                        counted rejection).
//   Verified             all held; key_id names the key of the signature that held.
//
// Thread-safety: JudgeEvidence is pure; VerificationCache is thread-safe; VerifyArtifact uses
// its Registry from the calling thread only.
#ifndef CUB_LIB_OCI_VERIFY_H_
#define CUB_LIB_OCI_VERIFY_H_

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/oci/evidence.h"
#include "lib/oci/registry.h"
#include "lib/sign/key_ring.h"

namespace cub::oci {

inline constexpr char kVerified[] = "Verified";
inline constexpr char kSignatureMissing[] = "SignatureMissing";
inline constexpr char kSignatureInvalid[] = "SignatureInvalid";
inline constexpr char kProvenanceMismatch[] = "ProvenanceMismatch";
inline constexpr char kApprovalsMissing[] = "ApprovalsMissing";
inline constexpr char kSigningKeyNotReady[] = "SigningKeyNotReady";
inline constexpr char kRegistryUnavailable[] = "RegistryUnavailable";

// The predicate types of the records cubd signs (as lib/ops/releases.h names them; lib/oci may
// not include lib/ops).
inline constexpr char kProvenancePredicateType[] = "https://cub.dev/release-provenance/v1";
inline constexpr char kApprovalPredicateType[] = "https://cub.dev/approval/v1";

// What the deploy expects of the artifact.
struct Expectation {
  std::string space;
  std::string release_id;    // empty: any Release of the Space
  std::string change_order;  // "BASE/NAME" or empty (a Release of no ChangeOrder)
  bool approvals_required = false;
};

struct Verification {
  std::string reason;   // one of the constants above
  std::string message;  // what held or what did not, naming the digest, key or field
  std::string digest;   // the manifest digest checked (empty when the reference resolved to none)
  std::string key_id;   // the signature's key; empty unless Verified

  bool verified() const { return reason == kVerified; }
};

// The checks above over evidence already read (pure). `bundle_digest` is the digest recomputed
// from the artifact's layer.
Verification JudgeEvidence(const std::string& manifest_digest, const std::string& bundle_digest,
                           const FoundEvidence& evidence, const Expectation& expected,
                           const sign::KeySnapshot& keys);

// Results per (manifest digest, the evidence manifests' digests, expectation, key generation):
// right until one of those changes, since everything judged is content-addressed by them. Only
// conclusive results are kept (not RegistryUnavailable or SigningKeyNotReady). Bounded: the
// least recently used entry goes beyond `capacity`.
class VerificationCache {
 public:
  explicit VerificationCache(size_t capacity = 4096) : capacity_(capacity) {}
  std::optional<Verification> Find(const std::string& key);
  void Put(const std::string& key, const Verification& v);

  static std::string Key(const std::string& manifest_digest,
                         const std::vector<Descriptor>& evidence, const Expectation& expected,
                         int64_t generation);

 private:
  std::mutex mu_;
  size_t capacity_;
  std::list<std::pair<std::string, Verification>> lru_;  // most recent first
  std::unordered_map<std::string, decltype(lru_)::iterator> index_;
};

// Resolves `reference` (a tag, or a digest) in `registry` and verifies the artifact there:
// reads its manifest and layer (recomputing the bundle digest from the layer's files), lists
// and reads its evidence, and judges it. `cache` may be null. Never an error: a registry that
// fails gives RegistryUnavailable. When `verified` is set, it receives the manifest judged (the
// bytes to tag when Verified), unless the registry held none.
Verification VerifyArtifact(Registry& registry, const std::string& reference,
                            const Expectation& expected, const sign::KeySnapshot& keys,
                            VerificationCache* cache, Manifest* verified = nullptr);

}  // namespace cub::oci

#endif  // CUB_LIB_OCI_VERIFY_H_
