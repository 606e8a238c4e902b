// Verifying an artifact in its registry: what VerifyArtifact reads (the rules are verify.cc).
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/oci/artifact.h"
#include "lib/oci/verify.h"
#include "lib/util/bundle_digest.h"

namespace cub::oci {
namespace {

Verification Unavailable(const Registry& registry, const std::string& digest,
                         const absl::Status& s) {
  return Verification{kRegistryUnavailable,
                      absl::StrCat("registry ", registry.host(), ": ", s.message()), digest, ""};
}

// The bundle digest of the files in the artifact's layer (the single layer of kLayerMediaType).
absl::StatusOr<std::string> LayerBundleDigest(Registry& registry, const Manifest& m) {
  auto parsed = ParseImageManifest(m.body);
  if (!parsed.ok()) return parsed.status();
  const ImageManifest::Layer* layer = nullptr;
  for (const auto& l : parsed->layers) {
    if (l.media_type == kLayerMediaType) {
      if (layer) return absl::InvalidArgumentError("the manifest has more than one layer");
      layer = &l;
    }
  }
  if (!layer) {
    return absl::InvalidArgumentError(
        absl::StrCat("the manifest has no layer of type ", kLayerMediaType));
  }
  LayerLimits limits;
  auto blob = registry.GetBlob(layer->digest, limits.max_total_bytes);
  if (!blob.ok()) return blob.status();
  auto files = ReadLayer(*blob, limits);
  if (!files.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("layer ", layer->digest, ": ", files.status().message()));
  }
  std::vector<NamedContent> named;
  for (const auto& f : *files) named.emplace_back(f.name, f.content);
  return BundleDigestOf(std::move(named));
}

// A status of the registry itself (as opposed to content that does not hold).
bool RegistryFailed(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) || absl::IsInternal(s) ||
         absl::IsUnauthenticated(s) || absl::IsPermissionDenied(s);
}

}  // namespace

Verification VerifyArtifact(Registry& registry, const std::string& reference,
                            const Expectation& expected, const sign::KeySnapshot& keys,
                            VerificationCache* cache, Manifest* verified) {
  if (!keys.signing) {
    return Verification{
        kSigningKeyNotReady,
        absl::StrCat("cubd has no signing key yet", keys.signing_missing.empty() ? "" : ": ",
                     keys.signing_missing, "; nothing is deployed"),
        "", ""};
  }
  std::string where = absl::StrCat(registry.host(), "/", registry.repository(), ":", reference);
  auto m = registry.GetManifest(reference);
  if (!m.ok()) return Unavailable(registry, "", m.status());
  if (!*m) {
    return Verification{kSignatureMissing, absl::StrCat("the registry holds no artifact ", where),
                        "", ""};
  }
  const std::string digest = (*m)->digest;
  auto listed = ListEvidence(registry, digest);
  if (!listed.ok()) return Unavailable(registry, digest, listed.status());
  const std::string key = VerificationCache::Key(digest, *listed, expected, keys.generation);
  if (cache) {
    if (auto hit = cache->Find(key)) {
      if (verified) *verified = **m;
      return *hit;
    }
  }
  Verification v;
  auto bundle = LayerBundleDigest(registry, **m);
  if (!bundle.ok() && RegistryFailed(bundle.status())) {
    return Unavailable(registry, digest, bundle.status());
  }
  auto evidence = ReadEvidence(registry, digest, *listed);
  if (!evidence.ok()) return Unavailable(registry, digest, evidence.status());
  if (!bundle.ok()) {
    // Signed or not, an artifact whose layer cannot be read is not what cubd pushed.
    v = JudgeEvidence(digest, "", *evidence, expected, keys);
    if (v.verified() || v.reason == kProvenanceMismatch) {
      v = Verification{
          kProvenanceMismatch,
          absl::StrCat(digest, ": the layer does not read: ", bundle.status().message()), digest,
          ""};
    }
  } else {
    v = JudgeEvidence(digest, *bundle, *evidence, expected, keys);
  }
  if (cache) cache->Put(key, v);
  if (verified) *verified = **m;
  return v;
}

}  // namespace cub::oci
