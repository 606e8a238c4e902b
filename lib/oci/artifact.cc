#include "lib/oci/artifact.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/oci/registry.h"
#include "lib/util/json.h"
#include "lib/util/time_text.h"

namespace cub::oci {
namespace {

Json DescriptorJson(const Blob& b) {
  Json d = Json::object();
  d["mediaType"] = b.media_type;
  d["digest"] = b.digest;
  d["size"] = b.data.size();
  return d;
}

std::string StringOr(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::map<std::string, std::string> Annotations(const Json& j) {
  std::map<std::string, std::string> out;
  auto it = j.find("annotations");
  if (it == j.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace

absl::StatusOr<ReleaseArtifact> BuildReleaseArtifact(const ReleaseInfo& info,
                                                     std::vector<LayerFile> files) {
  std::vector<std::string> names;
  for (const LayerFile& f : files) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  absl::StatusOr<std::string> layer = BuildLayer(std::move(files));
  if (!layer.ok()) return layer.status();

  ReleaseArtifact a;
  a.layer = {kLayerMediaType, *std::move(layer), ""};
  a.layer.digest = DigestOf(a.layer.data);

  // The config: what the Release is, for a reader that does not look at annotations.
  Json config = Json::object();
  config["space"] = info.space;
  config["release"] = info.release_num;
  config["releaseID"] = info.release_id;
  config["changeOrder"] = info.change_order;
  config["bundleDigest"] = info.bundle_digest;
  config["files"] = names;
  a.config = {kReleaseConfigMediaType, JsonText(config), ""};
  a.config.digest = DigestOf(a.config.data);

  Json layer_desc = DescriptorJson(a.layer);
  layer_desc["annotations"] = Json::object();
  layer_desc["annotations"]["org.opencontainers.image.title"] =
      absl::StrCat(info.space, "-r", info.release_num, ".tar.gz");
  Json annotations = Json::object();
  annotations["org.opencontainers.image.title"] = info.space;
  annotations["org.opencontainers.image.created"] =
      FormatRfc3339(absl::FromUnixSeconds(info.created));
  annotations[kAnnotationSpace] = info.space;
  annotations[kAnnotationRelease] = std::to_string(info.release_num);
  annotations[kAnnotationReleaseId] = info.release_id;
  annotations[kAnnotationChangeOrder] = info.change_order;
  annotations[kAnnotationBundleDigest] = info.bundle_digest;

  Json manifest = Json::object();
  manifest["schemaVersion"] = 2;
  manifest["mediaType"] = kOciManifest;
  manifest["config"] = DescriptorJson(a.config);
  manifest["layers"] = Json::array({layer_desc});
  manifest["annotations"] = annotations;
  a.manifest = JsonText(manifest);
  a.manifest_digest = DigestOf(a.manifest);
  return a;
}

absl::StatusOr<ImageManifest> ParseImageManifest(std::string_view body) {
  absl::StatusOr<Json> doc = ParseJson(body);
  if (!doc.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("manifest: not JSON: ", doc.status().message()));
  }
  if (!doc->is_object() || !doc->contains("schemaVersion") || (*doc)["schemaVersion"] != 2) {
    return absl::InvalidArgumentError("manifest: not an image manifest (schemaVersion 2)");
  }
  ImageManifest m;
  m.media_type = StringOr(*doc, "mediaType");
  if (!m.media_type.empty() && m.media_type != kOciManifest) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest: media type ", JsonQuote(m.media_type), " is not ", kOciManifest));
  }
  m.artifact_type = StringOr(*doc, "artifactType");
  m.annotations = Annotations(*doc);
  auto config = doc->find("config");
  if (config == doc->end() || !config->is_object()) {
    return absl::InvalidArgumentError("manifest: no config descriptor");
  }
  m.config_media_type = StringOr(*config, "mediaType");
  m.config_digest = StringOr(*config, "digest");
  if (config->contains("size") && (*config)["size"].is_number_integer()) {
    m.config_size = (*config)["size"];
  }
  if (!IsDigest(m.config_digest)) {
    return absl::InvalidArgumentError(absl::StrCat("manifest: the config digest ",
                                                   JsonQuote(m.config_digest), " is not a digest"));
  }
  auto layers = doc->find("layers");
  if (layers != doc->end() && !layers->is_array()) {
    return absl::InvalidArgumentError("manifest: \"layers\" is not an array");
  }
  if (layers != doc->end()) {
    for (const Json& l : *layers) {
      if (!l.is_object()) return absl::InvalidArgumentError("manifest: a layer is not an object");
      ImageManifest::Layer layer;
      layer.media_type = StringOr(l, "mediaType");
      layer.digest = StringOr(l, "digest");
      if (l.contains("size") && l["size"].is_number_integer()) layer.size = l["size"];
      layer.annotations = Annotations(l);
      if (!IsDigest(layer.digest)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "manifest: the layer digest ", JsonQuote(layer.digest), " is not a digest"));
      }
      m.layers.push_back(std::move(layer));
    }
  }
  if (auto subject = doc->find("subject"); subject != doc->end()) {
    m.subject_digest = subject->is_object() ? StringOr(*subject, "digest") : "";
    if (!IsDigest(m.subject_digest)) {
      return absl::InvalidArgumentError("manifest: the subject's digest is not a digest");
    }
  }
  return m;
}

}  // namespace cub::oci
