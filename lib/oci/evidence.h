// The evidence cubd pushes beside a Release's artifact in an OCI registry, so that whoever deploys
// the artifact (cubd itself, before every deploy: lib/oci/verify.h) can check it in the registry
// and not only in cubd's database.
//
// Evidence is two OCI image manifests used as artifacts (OCI 1.1 "artifact" form: an empty
// config "{}" of type application/vnd.oci.empty.v1+json, `artifactType`, and `subject` naming
// the Release's manifest), each layer a DSSE envelope (application/vnd.dsse.envelope.v1+json):
//
//   signature     artifactType kSignatureArtifactType, one layer: an in-toto Statement
//                 (predicate kArtifactPredicate) whose subject is the manifest digest and
//                 whose predicate names the Space, Release number and ID, ChangeOrder and
//                 bundle digest; signed with cubd's current key.
//                 Tag: "sha256-<hex of the manifest digest>.sig" (cosign's naming).
//   attestations  artifactType kAttestationsArtifactType, one layer per record, each annotated
//                 kEvidenceKindAnnotation = provenance | approvals | promotion-record: the
//                 Release's signed provenance as cubd recorded it, its sealed approvals (when
//                 any were sealed), the signed promotion records of its ChangeOrder in the
//                 Space. Tag: "sha256-<hex>.att".
//
// Both are pushed under their tags on every registry (the tags are how a registry without the
// referrers API, such as distribution 2.8, finds them); a registry with the referrers API also
// lists them as referrers of the manifest, and reading prefers that list.
//
// Documents are built deterministically: the same inputs give the same bytes and digests, so
// pushing the evidence of a Release again changes nothing in the registry.
#ifndef CUB_LIB_OCI_EVIDENCE_H_
#define CUB_LIB_OCI_EVIDENCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/oci/registry.h"
#include "lib/sign/signing_key.h"

namespace cub::oci {

inline constexpr char kDsseMediaType[] = "application/vnd.dsse.envelope.v1+json";
inline constexpr char kEmptyMediaType[] = "application/vnd.oci.empty.v1+json";
inline constexpr char kSignatureArtifactType[] = "application/vnd.cub.signature.v1+json";
inline constexpr char kAttestationsArtifactType[] = "application/vnd.cub.attestations.v1+json";
// The predicate type of the signature's statement.
inline constexpr char kArtifactPredicate[] = "https://cub.dev/oci-artifact/v1";
// The annotation naming what an attestation layer holds.
inline constexpr char kEvidenceKindAnnotation[] = "cub.dev/evidence";
inline constexpr char kKindProvenance[] = "provenance";
inline constexpr char kKindApprovals[] = "approvals";
inline constexpr char kKindPromotionRecord[] = "promotion-record";

// What the signature says of the artifact.
struct ArtifactClaims {
  std::string space;
  int64_t release_num = 0;
  std::string release_id;
  std::string change_order;   // "BASE/NAME" or empty
  std::string bundle_digest;  // "sha256:<hex>"
};

// The records pushed as attestations (each a DSSE envelope's JSON, as cubd recorded it).
struct Attestations {
  std::string provenance;
  std::string sealed_approvals;  // empty: none were sealed
  std::vector<std::string> promotion_records;
};

// "sha256-<hex>.sig" and "sha256-<hex>.att" for a manifest digest "sha256:<hex>".
std::string SignatureTag(std::string_view manifest_digest);
std::string AttestationsTag(std::string_view manifest_digest);

// The signature's DSSE envelope (JSON) over `claims` about the manifest `manifest_digest`,
// signed with `key`. Subject name "SPACE/release-N".
std::string SignArtifact(const sign::SigningKey& key, const std::string& manifest_digest,
                         const ArtifactClaims& claims);

// An evidence manifest and the blobs it names (config and layers), ready to push.
struct EvidenceArtifact {
  std::string manifest;                                    // JSON, media type kOciManifest
  std::vector<std::pair<std::string, std::string>> blobs;  // digest -> bytes
};

// `subject` is the Release's manifest (media type, digest and size).
EvidenceArtifact SignatureArtifact(const Descriptor& subject, const std::string& signature_json);
EvidenceArtifact AttestationsArtifact(const Descriptor& subject, const Attestations& records);

// Pushes both evidence artifacts for `subject` and tags them. Errors: the registry's.
absl::Status PushEvidence(Registry& registry, const Descriptor& subject,
                          const std::string& signature_json, const Attestations& records);

// The evidence manifests a registry holds for `manifest_digest`: through the referrers API
// (our two artifact types), else through the two tags. Each descriptor's artifact_type says
// which it is. Cheap (one request, or two HEADs): the verifier's cache keys on the result.
absl::StatusOr<std::vector<Descriptor>> ListEvidence(Registry& registry,
                                                     const std::string& manifest_digest);

// The evidence read from those manifests. A manifest whose subject is not `manifest_digest`, or
// that does not parse, is skipped (it proves nothing about this artifact); so is a layer of
// another media type.
struct FoundEvidence {
  std::vector<std::string> signatures;  // DSSE JSON, one per signature layer found
  Attestations attestations;            // the first of each kind found ("" when none)
  std::vector<std::string> notes;       // what was skipped and why, for messages
};
absl::StatusOr<FoundEvidence> ReadEvidence(Registry& registry, const std::string& manifest_digest,
                                           const std::vector<Descriptor>& manifests);

// An evidence manifest, parsed (pure): its artifactType and layers, when its subject is
// `manifest_digest`. INVALID_ARGUMENT naming what is wrong otherwise.
struct EvidenceManifest {
  std::string artifact_type;
  std::vector<Descriptor> layers;
};
absl::StatusOr<EvidenceManifest> ParseEvidenceManifest(std::string_view manifest_json,
                                                       const std::string& manifest_digest);

}  // namespace cub::oci

#endif  // CUB_LIB_OCI_EVIDENCE_H_
