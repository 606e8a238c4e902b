// A Release as an OCI artifact: one image manifest with a config blob and a single tar+gzip
// layer holding the Space's files, which Flux's OCIRepository (its default: the first layer,
// extracted) and Argo CD's OCI source (a single layer of an allowed media type, by default
// application/vnd.oci.image.layer.v1.tar+gzip) both pull and unpack. docs/operations.md
// ("OCI Targets") states the layout for operators.
//
// Deterministic: the same Release (the same files, numbers and times) gives byte-identical
// blobs and manifest, so the same digests; a retry pushes nothing new. The layer's tar is
// POSIX ustar: entries sorted by name, regular files of mode 0644, uid/gid 0, no user or group
// names, mtime 0; a name over 100 bytes gets a PAX "path" record. The gzip stream has no file
// name and mtime 0 (zlib at level 9; another zlib version could compress differently, which
// changes the layer's digest but not its files).
//
// Pure functions; thread-safe.
#ifndef CUB_LIB_OCI_ARTIFACT_H_
#define CUB_LIB_OCI_ARTIFACT_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::oci {

inline constexpr char kLayerMediaType[] = "application/vnd.oci.image.layer.v1.tar+gzip";
inline constexpr char kReleaseConfigMediaType[] = "application/vnd.cub.release.config.v1+json";

// Manifest annotations (besides org.opencontainers.image.title and .created).
inline constexpr char kAnnotationSpace[] = "cub.dev/space";
inline constexpr char kAnnotationRelease[] = "cub.dev/release";
inline constexpr char kAnnotationReleaseId[] = "cub.dev/release-id";
inline constexpr char kAnnotationChangeOrder[] = "cub.dev/change-order";
inline constexpr char kAnnotationBundleDigest[] = "cub.dev/bundle-digest";

struct LayerFile {
  std::string name;  // plain: no '/', no NUL, not starting with '.'
  std::string content;
};

// What the manifest says of the Release.
struct ReleaseInfo {
  std::string space;
  int64_t release_num = 0;
  std::string release_id;
  std::string change_order;   // may be empty
  std::string bundle_digest;  // "sha256:..."
  int64_t created = 0;        // Unix seconds: when the Release was published
};

struct Blob {
  std::string media_type;
  std::string data;
  std::string digest;
};

struct ReleaseArtifact {
  Blob config;
  Blob layer;
  std::string manifest;  // kOciManifest JSON
  std::string manifest_digest;
};

// The artifact of a Release with `files` (any order; written sorted by name).
// INVALID_ARGUMENT naming the file for a name that is not plain or appears twice.
absl::StatusOr<ReleaseArtifact> BuildReleaseArtifact(const ReleaseInfo& info,
                                                     std::vector<LayerFile> files);

// The tar+gzip layer of `files` alone (as BuildReleaseArtifact makes it).
absl::StatusOr<std::string> BuildLayer(std::vector<LayerFile> files);

// Bounds for reading a layer that came from a registry.
struct LayerLimits {
  size_t max_total_bytes = 64 << 20;  // of the files' contents together (uncompressed)
  size_t max_entries = 20000;
};

// The files of a tar+gzip layer, sorted by name. Only what BuildLayer writes is accepted:
// regular files with plain names (ustar, PAX "path" records), no duplicates.
// INVALID_ARGUMENT naming what is wrong (a link, a directory, a name with '/', a bad
// checksum, a truncated stream); RESOURCE_EXHAUSTED beyond `limits`.
absl::StatusOr<std::vector<LayerFile>> ReadLayer(std::string_view tar_gzip,
                                                 const LayerLimits& limits = {});

// An image manifest as read back: its config and layer descriptors, annotations and subject.
struct ImageManifest {
  std::string media_type;
  std::string artifact_type;
  std::string config_media_type, config_digest;
  int64_t config_size = 0;
  struct Layer {
    std::string media_type, digest;
    int64_t size = 0;
    std::map<std::string, std::string> annotations;
  };
  std::vector<Layer> layers;
  std::map<std::string, std::string> annotations;
  std::string subject_digest;  // empty when none
};

// Reads an OCI image manifest. INVALID_ARGUMENT when `body` is not one (schemaVersion 2,
// digests well formed).
absl::StatusOr<ImageManifest> ParseImageManifest(std::string_view body);

}  // namespace cub::oci

#endif  // CUB_LIB_OCI_ARTIFACT_H_
