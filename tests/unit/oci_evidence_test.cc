// Tests for lib/oci/evidence (the documents) and the pure verification rules of lib/oci/verify:
// each refusal reason from evidence built as cubd builds it, key rotation and revocation over a
// KeySnapshot, and the results cache. The registry side is tests/integration and the e2e
// oci_verify_test.sh against a real registry.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "lib/oci/evidence.h"
#include "lib/oci/verify.h"
#include "lib/sign/dsse.h"
#include "lib/sign/key_ring.h"
#include "lib/sign/statement.h"
#include "lib/util/bundle_digest.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

sign::SigningKey NewKey() {
  auto k = sign::SigningKey::Generate();
  REQUIRE(k.ok());
  return *k;
}

sign::KeySnapshot Snapshot(const sign::SigningKey& signing,
                           std::vector<sign::SigningKey> also_trusted = {}) {
  sign::KeySnapshot s;
  s.generation = 7;
  s.signing = signing;
  s.trusted.push_back({signing.KeyId(), signing.PublicKeyPem()});
  for (const auto& k : also_trusted) s.trusted.push_back({k.KeyId(), k.PublicKeyPem()});
  return s;
}

const std::string kManifest = DigestOf("the release's manifest");
const std::string kBundle = BundleDigestOf({{"app.yaml", "kind: ConfigMap\n"}});

std::string Signed(const sign::SigningKey& key, const char* type, const std::string& digest,
                   const Json& pred) {
  return sign::SignEnvelope(key, sign::kInTotoPayloadType,
                            sign::Statement({{"prod/release-3", digest.substr(7)}}, type, pred))
      .ToJson();
}

std::string Provenance(const sign::SigningKey& key, const std::string& space = "prod",
                       const std::string& co = "base/fix-1") {
  return Signed(key, kProvenancePredicateType, kBundle,
                {{"Space", space}, {"ReleaseNum", 3}, {"ChangeOrder", co}});
}

Json Vote(const std::string& result, bool counted = true) {
  return {{"Requirement", "two-approvers"},
          {"User", "ann"},
          {"Result", result},
          {"Unit", "app"},
          {"RevisionNum", 2},
          {"Counted", counted}};
}

std::string Approvals(const sign::SigningKey& key, Json votes, int count = 1) {
  Json pred = Json::object();
  pred["Release"] = {{"Space", "prod"}, {"ReleaseNum", 3}, {"BundleDigest", kBundle}};
  pred["ChangeOrder"] = "base/fix-1";
  pred["Policy"] = Json::array({{{"Name", "two-approvers"}, {"Count", count}}});
  pred["Votes"] = std::move(votes);
  return Signed(key, kApprovalPredicateType, kBundle, pred);
}

ArtifactClaims Claims() { return {"prod", 3, "rel-3", "base/fix-1", kBundle}; }

FoundEvidence Evidence(const sign::SigningKey& key) {
  FoundEvidence e;
  e.signatures.push_back(SignArtifact(key, kManifest, Claims()));
  e.attestations.provenance = Provenance(key);
  return e;
}

const Expectation kExpect{"prod", "rel-3", "base/fix-1", false};

TEST_CASE("Evidence tags follow cosign's naming", "[oci]") {
  CHECK(SignatureTag(kManifest) == "sha256-" + kManifest.substr(7) + ".sig");
  CHECK(AttestationsTag(kManifest) == "sha256-" + kManifest.substr(7) + ".att");
}

TEST_CASE("Evidence manifests name their subject and read back", "[oci]") {
  Descriptor subject{kOciManifest, kManifest, 512, "", {}};
  auto key = NewKey();
  Attestations a{Provenance(key), Approvals(key, Json::array({Vote("Pass")})), {"{}", "[]"}};
  EvidenceArtifact art = AttestationsArtifact(subject, a);
  CHECK(AttestationsArtifact(subject, a).manifest == art.manifest);  // deterministic
  CHECK(art.blobs.size() == 5);  // the empty config and four layers
  CHECK(art.blobs[0] == std::pair<std::string, std::string>{DigestOf("{}"), "{}"});
  auto parsed = ParseEvidenceManifest(art.manifest, kManifest);
  REQUIRE(parsed.ok());
  CHECK(parsed->artifact_type == kAttestationsArtifactType);
  REQUIRE(parsed->layers.size() == 4);
  CHECK(parsed->layers[0].annotations.at(kEvidenceKindAnnotation) == kKindProvenance);
  CHECK(parsed->layers[1].annotations.at(kEvidenceKindAnnotation) == kKindApprovals);
  CHECK(parsed->layers[3].annotations.at(kEvidenceKindAnnotation) == kKindPromotionRecord);
  CHECK(parsed->layers[0].digest == DigestOf(a.provenance));
  CHECK(parsed->layers[0].media_type == kDsseMediaType);

  auto json = ParseJson(SignatureArtifact(subject, "sig").manifest);
  REQUIRE(json.ok());
  CHECK((*json)["artifactType"] == kSignatureArtifactType);
  CHECK((*json)["config"]["mediaType"] == kEmptyMediaType);
  CHECK((*json)["subject"]["digest"] == kManifest);
  CHECK((*json)["subject"]["size"] == 512);

  auto other = ParseEvidenceManifest(art.manifest, DigestOf("another"));
  REQUIRE_FALSE(other.ok());
  CHECK(absl::StrContains(other.status().message(), "its subject is " + kManifest));
  CHECK_FALSE(ParseEvidenceManifest("{\"layers\":[]}", kManifest).ok());
}

TEST_CASE("Evidence as cubd pushes it verifies", "[oci]") {
  auto key = NewKey();
  Verification v = JudgeEvidence(kManifest, kBundle, Evidence(key), kExpect, Snapshot(key));
  CHECK(v.reason == kVerified);
  CHECK(v.key_id == key.KeyId());
  CHECK(v.digest == kManifest);
  CHECK(absl::StrContains(v.message, "base/fix-1"));
}

TEST_CASE("No signing key is SigningKeyNotReady", "[oci]") {
  auto key = NewKey();
  sign::KeySnapshot keys = Snapshot(key);
  keys.signing.reset();
  CHECK(JudgeEvidence(kManifest, kBundle, Evidence(key), kExpect, keys).reason ==
        kSigningKeyNotReady);
}

TEST_CASE("A removed signature is SignatureMissing", "[oci]") {
  auto key = NewKey();
  FoundEvidence e = Evidence(key);
  e.signatures.clear();
  Verification v = JudgeEvidence(kManifest, kBundle, e, kExpect, Snapshot(key));
  CHECK(v.reason == kSignatureMissing);
  CHECK(absl::StrContains(v.message, SignatureTag(kManifest)));
}

TEST_CASE("A signature by a revoked or unknown key is SignatureInvalid", "[oci]") {
  auto old_key = NewKey();
  auto new_key = NewKey();
  FoundEvidence e = Evidence(old_key);
  // Rotation: signed by the earlier key, which is still trusted.
  Verification rotated =
      JudgeEvidence(kManifest, kBundle, e, kExpect, Snapshot(new_key, {old_key}));
  CHECK(rotated.reason == kVerified);
  CHECK(rotated.key_id == old_key.KeyId());
  // Revoked: the snapshot no longer lists it.
  Verification revoked = JudgeEvidence(kManifest, kBundle, e, kExpect, Snapshot(new_key));
  CHECK(revoked.reason == kSignatureInvalid);
  CHECK(absl::StrContains(revoked.message, old_key.KeyId()));
  CHECK(revoked.key_id.empty());
}

TEST_CASE("A signature over another manifest is SignatureInvalid", "[oci]") {
  auto key = NewKey();
  const std::string tampered = DigestOf("a manifest with a changed layer");
  Verification v = JudgeEvidence(tampered, kBundle, Evidence(key), kExpect, Snapshot(key));
  CHECK(v.reason == kSignatureInvalid);
  CHECK(absl::StrContains(v.message, "not " + tampered));
  FoundEvidence garbled = Evidence(key);
  garbled.signatures[0] = "not json";
  CHECK(JudgeEvidence(kManifest, kBundle, garbled, kExpect, Snapshot(key)).reason ==
        kSignatureInvalid);
}

TEST_CASE("An artifact of another Space, ChangeOrder or bundle is ProvenanceMismatch", "[oci]") {
  auto key = NewKey();
  Expectation other_space = kExpect;
  other_space.space = "staging";
  other_space.release_id = "";
  Verification v = JudgeEvidence(kManifest, kBundle, Evidence(key), other_space, Snapshot(key));
  CHECK(v.reason == kProvenanceMismatch);
  CHECK(absl::StrContains(v.message, "Space 'prod', this deploy expects 'staging'"));

  Expectation other_co = kExpect;
  other_co.change_order = "base/fix-2";
  CHECK(JudgeEvidence(kManifest, kBundle, Evidence(key), other_co, Snapshot(key)).reason ==
        kProvenanceMismatch);

  // The layer's files are not the signed bundle.
  const std::string changed = BundleDigestOf({{"app.yaml", "kind: Secret\n"}});
  v = JudgeEvidence(kManifest, changed, Evidence(key), kExpect, Snapshot(key));
  CHECK(v.reason == kProvenanceMismatch);
  CHECK(absl::StrContains(v.message, "layer holds bundle " + changed));

  FoundEvidence no_prov = Evidence(key);
  no_prov.attestations.provenance.clear();
  CHECK(JudgeEvidence(kManifest, kBundle, no_prov, kExpect, Snapshot(key)).reason ==
        kProvenanceMismatch);

  // Provenance of another Space under a signature that names this one.
  FoundEvidence swapped = Evidence(key);
  swapped.attestations.provenance = Provenance(key, "staging");
  v = JudgeEvidence(kManifest, kBundle, swapped, kExpect, Snapshot(key));
  CHECK(v.reason == kProvenanceMismatch);
  CHECK(absl::StrContains(v.message, "the provenance names Space 'staging'"));

  // Provenance signed by a key cubd does not trust.
  FoundEvidence forged = Evidence(key);
  forged.attestations.provenance = Provenance(NewKey());
  CHECK(JudgeEvidence(kManifest, kBundle, forged, kExpect, Snapshot(key)).reason ==
        kProvenanceMismatch);
}

TEST_CASE("Required approvals must be sealed, signed and approving", "[oci]") {
  auto key = NewKey();
  Expectation gated = kExpect;
  gated.approvals_required = true;
  FoundEvidence e = Evidence(key);
  Verification v = JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key));
  CHECK(v.reason == kApprovalsMissing);

  e.attestations.sealed_approvals = Approvals(key, Json::array({Vote("Pass")}));
  v = JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key));
  CHECK(v.reason == kVerified);
  CHECK(absl::StrContains(v.message, "sealed approvals approve it"));

  e.attestations.sealed_approvals = Approvals(key, Json::array({Vote("Pass")}), 2);
  v = JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key));
  CHECK(v.reason == kApprovalsMissing);
  CHECK(absl::StrContains(v.message, "app revision 2 has 1 of 2"));

  e.attestations.sealed_approvals =
      Approvals(key, Json::array({Vote("Pass"), Vote("Fail"), Vote("Pass", false)}));
  CHECK(JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key)).reason == kApprovalsMissing);

  e.attestations.sealed_approvals = Approvals(key, Json::array({Vote("Pass", false)}));
  CHECK(JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key)).reason == kApprovalsMissing);

  e.attestations.sealed_approvals = Approvals(NewKey(), Json::array({Vote("Pass")}));
  CHECK(JudgeEvidence(kManifest, kBundle, e, gated, Snapshot(key)).reason == kApprovalsMissing);
}

TEST_CASE("The cache keys on evidence, expectation and key generation", "[oci]") {
  std::vector<Descriptor> ev{{kOciManifest, DigestOf("sig"), 1, kSignatureArtifactType, {}}};
  const std::string k = VerificationCache::Key(kManifest, ev, kExpect, 7);
  CHECK(k != VerificationCache::Key(kManifest, ev, kExpect, 8));
  CHECK(k != VerificationCache::Key(kManifest, {}, kExpect, 7));
  Expectation other = kExpect;
  other.space = "staging";
  CHECK(k != VerificationCache::Key(kManifest, ev, other, 7));

  VerificationCache cache(2);
  cache.Put(k, {kVerified, "ok", kManifest, "key"});
  cache.Put("unavailable", {kRegistryUnavailable, "down", kManifest, ""});
  CHECK_FALSE(cache.Find("unavailable").has_value());
  REQUIRE(cache.Find(k).has_value());
  CHECK(cache.Find(k)->key_id == "key");
  cache.Put("b", {kSignatureMissing, "", kManifest, ""});
  cache.Find(k);  // k is the most recent now; "b" goes first
  cache.Put("c", {kSignatureMissing, "", kManifest, ""});
  CHECK(cache.Find(k).has_value());
  CHECK_FALSE(cache.Find("b").has_value());
  CHECK(cache.Find("c").has_value());
}

}  // namespace
}  // namespace cub::oci
