// Pushing evidence to a registry and reading it back (the documents are evidence.cc).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/oci/evidence.h"
#include "lib/util/status_macros.h"

namespace cub::oci {
namespace {

// An evidence layer is a DSSE envelope: a few KiB, far below this.
constexpr size_t kMaxEvidenceLayer = 1 << 20;
// What one verification reads at most. cub writes two evidence manifests per Release (one with
// a layer per attestation); whoever controls the registry could list thousands, so the rest
// are not read (a Release whose real evidence they crowd out is refused, not cubd exhausted).
constexpr size_t kMaxEvidenceManifests = 16;
constexpr size_t kMaxLayersPerManifest = 64;
constexpr size_t kMaxEvidenceBytes = 8 << 20;
constexpr size_t kMaxNotes = 8;

void Note(FoundEvidence& out, std::string note) {
  if (out.notes.size() < kMaxNotes) {
    out.notes.push_back(std::move(note));
  } else if (out.notes.size() == kMaxNotes) {
    out.notes.push_back("more not listed");
  }
}

absl::Status Push(Registry& registry, const std::string& tag, const EvidenceArtifact& a) {
  for (const auto& [digest, bytes] : a.blobs) {
    CUB_RETURN_IF_ERROR(registry.PutBlob(bytes, digest));
  }
  return registry.PutManifest(tag, kOciManifest, a.manifest).status();
}

}  // namespace

absl::Status PushEvidence(Registry& registry, const Descriptor& subject,
                          const std::string& signature_json, const Attestations& records) {
  CUB_RETURN_IF_ERROR(
      Push(registry, SignatureTag(subject.digest), SignatureArtifact(subject, signature_json)));
  return Push(registry, AttestationsTag(subject.digest), AttestationsArtifact(subject, records));
}

absl::StatusOr<std::vector<Descriptor>> ListEvidence(Registry& registry,
                                                     const std::string& manifest_digest) {
  auto referrers = registry.Referrers(manifest_digest);
  if (referrers.ok()) {
    std::vector<Descriptor> out;
    for (auto& d : *referrers) {
      if ((d.artifact_type == kSignatureArtifactType ||
           d.artifact_type == kAttestationsArtifactType) &&
          out.size() < kMaxEvidenceManifests) {
        out.push_back(std::move(d));
      }
    }
    // A registry that has the API but lists none of ours may still hold them under the tags
    // (pushed before it gained the API): look there too.
    if (!out.empty()) return out;
  } else if (!absl::IsUnimplemented(referrers.status())) {
    return referrers.status();
  }
  std::vector<Descriptor> out;
  for (const auto& [tag, type] :
       {std::pair<std::string, const char*>{SignatureTag(manifest_digest), kSignatureArtifactType},
        {AttestationsTag(manifest_digest), kAttestationsArtifactType}}) {
    CUB_ASSIGN_OR_RETURN(std::optional<std::string> digest, registry.ResolveTag(tag));
    if (!digest) continue;
    Descriptor d;
    d.media_type = kOciManifest;
    d.digest = *std::move(digest);
    d.artifact_type = type;
    out.push_back(std::move(d));
  }
  return out;
}

absl::StatusOr<FoundEvidence> ReadEvidence(Registry& registry, const std::string& manifest_digest,
                                           const std::vector<Descriptor>& manifests) {
  FoundEvidence out;
  size_t read_bytes = 0;
  if (manifests.size() > kMaxEvidenceManifests) {
    Note(out,
         absl::StrCat(manifests.size() - kMaxEvidenceManifests,
                      " evidence manifests beyond the first ", kMaxEvidenceManifests, " not read"));
  }
  for (size_t mi = 0; mi < manifests.size() && mi < kMaxEvidenceManifests; ++mi) {
    const Descriptor& d = manifests[mi];
    CUB_ASSIGN_OR_RETURN(std::optional<Manifest> m, registry.GetManifest(d.digest));
    if (!m) {
      Note(out, absl::StrCat("evidence manifest ", d.digest, " vanished while read"));
      continue;
    }
    auto parsed = ParseEvidenceManifest(m->body, manifest_digest);
    if (!parsed.ok()) {
      Note(out, absl::StrCat(d.digest, ": ", parsed.status().message()));
      continue;
    }
    bool signature = parsed->artifact_type == kSignatureArtifactType;
    if (!signature && parsed->artifact_type != kAttestationsArtifactType) {
      Note(out,
           absl::StrCat(d.digest, ": artifactType '", parsed->artifact_type, "' is not evidence"));
      continue;
    }
    if (parsed->layers.size() > kMaxLayersPerManifest) {
      Note(out, absl::StrCat(d.digest, ": ", parsed->layers.size(), " layers; the first ",
                             kMaxLayersPerManifest, " read"));
    }
    for (size_t li = 0; li < parsed->layers.size() && li < kMaxLayersPerManifest; ++li) {
      const Descriptor& layer = parsed->layers[li];
      if (layer.media_type != kDsseMediaType) continue;
      if (read_bytes + static_cast<size_t>(std::max<int64_t>(layer.size, 0)) > kMaxEvidenceBytes) {
        Note(out, absl::StrCat("evidence beyond ", kMaxEvidenceBytes, " bytes not read"));
        return out;
      }
      auto blob = registry.GetBlob(layer.digest, kMaxEvidenceLayer);
      if (absl::IsNotFound(blob.status())) {
        Note(out, absl::StrCat("evidence layer ", layer.digest, " is missing"));
        continue;
      }
      if (absl::IsResourceExhausted(blob.status())) {
        Note(out, absl::StrCat("evidence layer ", layer.digest, " is over ", kMaxEvidenceLayer,
                               " bytes"));
        continue;
      }
      if (!blob.ok()) return blob.status();
      read_bytes += blob->size();
      if (signature) {
        out.signatures.push_back(*std::move(blob));
        continue;
      }
      auto kind = layer.annotations.find(kEvidenceKindAnnotation);
      std::string k = kind == layer.annotations.end() ? "" : kind->second;
      Attestations& a = out.attestations;
      if (k == kKindProvenance && a.provenance.empty()) {
        a.provenance = *std::move(blob);
      } else if (k == kKindApprovals && a.sealed_approvals.empty()) {
        a.sealed_approvals = *std::move(blob);
      } else if (k == kKindPromotionRecord) {
        a.promotion_records.push_back(*std::move(blob));
      }
    }
  }
  return out;
}

}  // namespace cub::oci
