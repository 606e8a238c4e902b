// Pushing evidence to a registry and reading it back (the documents are evidence.cc).
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/oci/evidence.h"
#include "lib/util/status_macros.h"

namespace cub::oci {
namespace {

// An evidence layer is a DSSE envelope: a few KiB, far below this.
constexpr size_t kMaxEvidenceLayer = 1 << 20;

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
      if (d.artifact_type == kSignatureArtifactType ||
          d.artifact_type == kAttestationsArtifactType) {
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
  for (const Descriptor& d : manifests) {
    CUB_ASSIGN_OR_RETURN(std::optional<Manifest> m, registry.GetManifest(d.digest));
    if (!m) {
      out.notes.push_back(absl::StrCat("evidence manifest ", d.digest, " vanished while read"));
      continue;
    }
    auto parsed = ParseEvidenceManifest(m->body, manifest_digest);
    if (!parsed.ok()) {
      out.notes.push_back(absl::StrCat(d.digest, ": ", parsed.status().message()));
      continue;
    }
    bool signature = parsed->artifact_type == kSignatureArtifactType;
    if (!signature && parsed->artifact_type != kAttestationsArtifactType) {
      out.notes.push_back(
          absl::StrCat(d.digest, ": artifactType '", parsed->artifact_type, "' is not evidence"));
      continue;
    }
    for (const Descriptor& layer : parsed->layers) {
      if (layer.media_type != kDsseMediaType) continue;
      auto blob = registry.GetBlob(layer.digest, kMaxEvidenceLayer);
      if (absl::IsNotFound(blob.status())) {
        out.notes.push_back(absl::StrCat("evidence layer ", layer.digest, " is missing"));
        continue;
      }
      if (!blob.ok()) return blob.status();
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
