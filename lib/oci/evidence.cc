// The evidence documents (pure): tags, the signature statement, the evidence manifests and their
// parsing. Pushing and reading them is evidence_io.cc.
#include "lib/oci/evidence.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

// The empty config "{}" every evidence manifest names (OCI image spec 1.1, "empty descriptor").
constexpr char kEmptyConfig[] = "{}";

std::string Hex(std::string_view digest) {
  std::string d(digest);
  return d.rfind("sha256:", 0) == 0 ? d.substr(7) : d;
}

Json DescriptorJson(const Descriptor& d) {
  Json j = Json::object();
  j["mediaType"] = d.media_type;
  j["digest"] = d.digest;
  j["size"] = d.size;
  if (!d.annotations.empty()) {
    Json a = Json::object();
    for (const auto& [k, v] : d.annotations) a[k] = v;
    j["annotations"] = std::move(a);
  }
  return j;
}

// A manifest of `artifact_type` about `subject` holding `layers` (each kind -> DSSE JSON; an
// empty kind adds no annotation).
EvidenceArtifact BuildArtifact(const Descriptor& subject, const std::string& artifact_type,
                               const std::vector<std::pair<std::string, std::string>>& layers) {
  EvidenceArtifact out;
  out.blobs.emplace_back(DigestOf(kEmptyConfig), kEmptyConfig);
  Json layer_list = Json::array();
  for (const auto& [kind, body] : layers) {
    Descriptor d{kDsseMediaType, DigestOf(body), static_cast<int64_t>(body.size()), "", {}};
    if (!kind.empty()) d.annotations[kEvidenceKindAnnotation] = kind;
    layer_list.push_back(DescriptorJson(d));
    out.blobs.emplace_back(d.digest, body);
  }
  Json m = Json::object();
  m["schemaVersion"] = 2;
  m["mediaType"] = kOciManifest;
  m["artifactType"] = artifact_type;
  m["config"] = DescriptorJson({kEmptyMediaType, DigestOf(kEmptyConfig), 2, "", {}});
  m["layers"] = std::move(layer_list);
  m["subject"] = DescriptorJson({subject.media_type, subject.digest, subject.size, "", {}});
  out.manifest = JsonText(m);
  return out;
}

absl::Status Malformed(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("evidence manifest: ", what));
}

absl::StatusOr<Descriptor> ReadDescriptor(const Json& j, const std::string& where) {
  if (!j.is_object()) return Malformed(absl::StrCat(where, " is not an object"));
  Descriptor d;
  auto str = [&](const char* key, std::string* out) -> absl::Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      return Malformed(absl::StrCat(where, ".", key, " is missing or not a string"));
    }
    *out = it->get<std::string>();
    return absl::OkStatus();
  };
  if (auto s = str("mediaType", &d.media_type); !s.ok()) return s;
  if (auto s = str("digest", &d.digest); !s.ok()) return s;
  if (!IsDigest(d.digest)) return Malformed(absl::StrCat(where, ".digest is not a sha256 digest"));
  auto size = j.find("size");
  if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0) {
    return Malformed(absl::StrCat(where, ".size is missing or not a size"));
  }
  d.size = size->get<int64_t>();
  auto ann = j.find("annotations");
  if (ann != j.end() && ann->is_object()) {
    for (const auto& [k, v] : ann->items()) {
      if (v.is_string()) d.annotations[k] = v.get<std::string>();
    }
  }
  return d;
}

}  // namespace

std::string SignatureTag(std::string_view manifest_digest) {
  return absl::StrCat("sha256-", Hex(manifest_digest), ".sig");
}

std::string AttestationsTag(std::string_view manifest_digest) {
  return absl::StrCat("sha256-", Hex(manifest_digest), ".att");
}

std::string SignArtifact(const sign::SigningKey& key, const std::string& manifest_digest,
                         const ArtifactClaims& claims) {
  Json pred = Json::object();
  pred["Space"] = claims.space;
  pred["ReleaseNum"] = claims.release_num;
  pred["ReleaseID"] = claims.release_id;
  pred["ChangeOrder"] = claims.change_order;
  pred["BundleDigest"] = claims.bundle_digest;
  std::string statement = sign::Statement(
      {{absl::StrCat(claims.space, "/release-", claims.release_num), Hex(manifest_digest)}},
      kArtifactPredicate, pred);
  return sign::SignEnvelope(key, sign::kInTotoPayloadType, statement).ToJson();
}

EvidenceArtifact SignatureArtifact(const Descriptor& subject, const std::string& signature_json) {
  return BuildArtifact(subject, kSignatureArtifactType, {{"", signature_json}});
}

EvidenceArtifact AttestationsArtifact(const Descriptor& subject, const Attestations& records) {
  std::vector<std::pair<std::string, std::string>> layers;
  if (!records.provenance.empty()) layers.emplace_back(kKindProvenance, records.provenance);
  if (!records.sealed_approvals.empty()) {
    layers.emplace_back(kKindApprovals, records.sealed_approvals);
  }
  for (const auto& r : records.promotion_records) layers.emplace_back(kKindPromotionRecord, r);
  return BuildArtifact(subject, kAttestationsArtifactType, layers);
}

absl::StatusOr<EvidenceManifest> ParseEvidenceManifest(std::string_view manifest_json,
                                                       const std::string& manifest_digest) {
  auto j = ParseJson(manifest_json);
  if (!j.ok()) return Malformed(std::string(j.status().message()));
  if (!j->is_object()) return Malformed("not a JSON object");
  EvidenceManifest out;
  auto type = j->find("artifactType");
  if (type != j->end() && type->is_string()) out.artifact_type = type->get<std::string>();
  auto subject = j->find("subject");
  if (subject == j->end()) return Malformed("has no subject");
  auto s = ReadDescriptor(*subject, "subject");
  if (!s.ok()) return s.status();
  if (s->digest != manifest_digest) {
    return Malformed(absl::StrCat("its subject is ", s->digest, ", not ", manifest_digest));
  }
  auto layers = j->find("layers");
  if (layers == j->end() || !layers->is_array()) return Malformed("layers is not a list");
  for (size_t i = 0; i < layers->size(); ++i) {
    auto d = ReadDescriptor((*layers)[i], absl::StrCat("layers[", i, "]"));
    if (!d.ok()) return d.status();
    out.layers.push_back(*std::move(d));
  }
  return out;
}

}  // namespace cub::oci
