// lib/oci/evidence and VerifyArtifact against a real registry: Debian's docker-registry
// (distribution 2.8, no referrers API, so evidence is found by its .sig/.att tags) started by
// tests/harness/registry.sh. A Release's artifact and evidence are pushed as cubd pushes them,
// then the registry's content is changed as an attacker could: a removed signature, a tampered
// layer under the Release's tag, an artifact of another Space, a revoked key, an unreachable
// registry. Skipped when docker-registry is missing.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../harness/registry_process.h"
#include "../harness/scratch_dir.h"
#include "absl/strings/match.h"
#include "lib/net/http_client.h"
#include "lib/oci/artifact.h"
#include "lib/oci/evidence.h"
#include "lib/oci/registry.h"
#include "lib/oci/verify.h"
#include "lib/sign/dsse.h"
#include "lib/sign/statement.h"
#include "lib/util/bundle_digest.h"

namespace cub::oci {
namespace {

using cub::testing::RegistryProcess;
using cub::testing::ScratchDir;

sign::SigningKey NewKey() {
  auto k = sign::SigningKey::Generate();
  REQUIRE(k.ok());
  return *k;
}

sign::KeySnapshot Keys(const sign::SigningKey& k, int64_t generation = 1) {
  sign::KeySnapshot s;
  s.generation = generation;
  s.signing = k;
  s.trusted.push_back({k.KeyId(), k.PublicKeyPem()});
  return s;
}

struct Pushed {
  std::string digest;
  Descriptor subject;
};

// Pushes the artifact of Release 1 of `space` holding `files` under `tag`, and (unless
// `evidence` is false) its signature and provenance as cubd does.
Pushed PushRelease(Registry& reg, const sign::SigningKey& key, const std::string& space,
                   const std::string& tag, std::vector<LayerFile> files, bool evidence = true) {
  std::vector<NamedContent> named;
  for (const auto& f : files) named.emplace_back(f.name, f.content);
  const std::string bundle = BundleDigestOf(named);
  ReleaseInfo info{space, 1, "rel-1-" + space, "base/fix", bundle, 1767225600};
  auto art = BuildReleaseArtifact(info, std::move(files));
  REQUIRE(art.ok());
  REQUIRE(reg.PutBlob(art->config.data, art->config.digest).ok());
  REQUIRE(reg.PutBlob(art->layer.data, art->layer.digest).ok());
  auto digest = reg.PutManifest(tag, kOciManifest, art->manifest);
  REQUIRE(digest.ok());
  REQUIRE(*digest == art->manifest_digest);
  Descriptor subject{kOciManifest, *digest, static_cast<int64_t>(art->manifest.size()), "", {}};
  if (evidence) {
    std::string provenance =
        sign::SignEnvelope(
            key, sign::kInTotoPayloadType,
            sign::Statement({{space + "/release-1", bundle.substr(7)}}, kProvenancePredicateType,
                            {{"Space", space}, {"ReleaseNum", 1}, {"ChangeOrder", "base/fix"}}))
            .ToJson();
    ArtifactClaims claims{space, 1, info.release_id, "base/fix", bundle};
    REQUIRE(
        PushEvidence(reg, subject, SignArtifact(key, *digest, claims), {provenance, "", {}}).ok());
  }
  return {*digest, subject};
}

Expectation Expect(const std::string& space) {
  return {space, "rel-1-" + space, "base/fix", false};
}

TEST_CASE("Evidence pushed to a registry without referrers verifies by its tags",
          "[oci][registry]") {
  if (!cub::testing::HaveRegistry()) {
    WARN("/usr/bin/docker-registry is missing: skipped");
    return;
  }
  net::InitHttpClient();
  ScratchDir tmp("cub_oci_verify");
  RegistryProcess server(tmp.path() + "/reg", "plain");
  RegistryOptions opts;
  opts.insecure = true;
  auto reg = Registry::Open(server.host() + "/cub/prod", opts);
  REQUIRE(reg.ok());
  auto key = NewKey();
  const std::vector<LayerFile> files{{"app.yaml", "kind: ConfigMap\n"}, {"db.yaml", "kind: x\n"}};
  Pushed p = PushRelease(*reg, key, "prod", "prod-r1", files);

  auto listed = ListEvidence(*reg, p.digest);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 2);
  CHECK((*listed)[0].artifact_type == kSignatureArtifactType);
  CHECK((*listed)[1].artifact_type == kAttestationsArtifactType);

  VerificationCache cache;
  Manifest judged;
  Verification v = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(key), &cache, &judged);
  INFO(v.message);
  CHECK(v.reason == kVerified);
  CHECK(v.digest == p.digest);
  CHECK(v.key_id == key.KeyId());
  CHECK(judged.digest == p.digest);
  // By digest too, and from the cache the second time.
  CHECK(VerifyArtifact(*reg, p.digest, Expect("prod"), Keys(key), &cache).reason == kVerified);

  SECTION("an artifact of another Space is ProvenanceMismatch") {
    auto other = Registry::Open(server.host() + "/cub/staging", opts);
    REQUIRE(other.ok());
    Pushed a = PushRelease(*other, key, "staging", "staging-r1", files);
    // Copied into prod's repository under prod's tag, evidence and all (as skopeo copy would).
    auto m = other->GetManifest(a.digest);
    REQUIRE(m.ok());
    REQUIRE(m->has_value());
    for (const char* t : {"", ".sig", ".att"}) {
      std::string from = *t ? "sha256-" + a.digest.substr(7) + t : a.digest;
      auto body = other->GetManifest(from);
      REQUIRE(body.ok());
      REQUIRE(body->has_value());
      auto parsed = ParseImageManifest((*body)->body);
      REQUIRE(parsed.ok());
      std::vector<std::string> blobs{parsed->config_digest};
      for (const auto& l : parsed->layers) blobs.push_back(l.digest);
      for (const auto& b : blobs) {
        auto data = other->GetBlob(b, 1 << 24);
        REQUIRE(data.ok());
        REQUIRE(reg->PutBlob(*data, b).ok());
      }
      REQUIRE(reg->PutManifest(*t ? from : "prod-r1", kOciManifest, (*body)->body).ok());
    }
    Verification c = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(key), &cache);
    CHECK(c.reason == kProvenanceMismatch);
    CHECK(absl::StrContains(c.message, "Space 'staging', this deploy expects 'prod'"));
  }

  SECTION("a removed signature is SignatureMissing, cached Verified or not") {
    auto sig = reg->ResolveTag(SignatureTag(p.digest));
    REQUIRE(sig.ok());
    REQUIRE(sig->has_value());
    REQUIRE(reg->DeleteManifest(**sig).ok());
    Verification m = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(key), &cache);
    CHECK(m.reason == kSignatureMissing);
    CHECK(absl::StrContains(m.message, SignatureTag(p.digest)));
  }

  SECTION("a tampered layer under the Release's tag is refused") {
    std::vector<LayerFile> changed = files;
    changed[0].content = "kind: Secret\n";
    Pushed t = PushRelease(*reg, key, "prod", "prod-r1", changed, false);
    Verification missing = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(key), &cache);
    CHECK(missing.reason == kSignatureMissing);
    CHECK(missing.digest == t.digest);
    // With the original's signature and attestations copied beside it.
    for (const auto& tag : {SignatureTag(p.digest), AttestationsTag(p.digest)}) {
      auto m = reg->GetManifest(tag);
      REQUIRE(m.ok());
      REQUIRE(m->has_value());
      std::string body = (*m)->body;
      size_t at = body.find(p.digest);
      REQUIRE(at != std::string::npos);
      body.replace(at, p.digest.size(), t.digest);  // the subject now names the tampered one
      std::string new_tag = tag;
      new_tag.replace(7, 64, t.digest.substr(7));
      REQUIRE(reg->PutManifest(new_tag, kOciManifest, body).ok());
    }
    Verification forged = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(key), &cache);
    CHECK(forged.reason == kSignatureInvalid);
    CHECK(absl::StrContains(forged.message, "not " + t.digest));
  }

  SECTION("a revoked key is SignatureInvalid") {
    auto next = NewKey();
    Verification r = VerifyArtifact(*reg, "prod-r1", Expect("prod"), Keys(next, 2), &cache);
    CHECK(r.reason == kSignatureInvalid);
    CHECK(absl::StrContains(r.message, key.KeyId()));
  }

  SECTION("no tag is refused, a registry that is gone is RegistryUnavailable") {
    CHECK(VerifyArtifact(*reg, "prod-r9", Expect("prod"), Keys(key), &cache).reason ==
          kSignatureMissing);
    auto gone = Registry::Open("127.0.0.1:1/cub/prod", opts);
    REQUIRE(gone.ok());
    Verification u = VerifyArtifact(*gone, "prod-r1", Expect("prod"), Keys(key), &cache);
    CHECK(u.reason == kRegistryUnavailable);
    CHECK(absl::StrContains(u.message, "127.0.0.1:1"));
  }
}

}  // namespace
}  // namespace cub::oci
