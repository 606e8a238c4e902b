// The file a Unit becomes in a Release's bundle: "<unit-slug><extension>", the extension given by
// the Unit's toolchain, so that a GitOps operator (Argo CD, Flux, a kustomization) reads only the
// YAML files as manifests and every other toolchain's files keep the extension their tools know.
#ifndef CUB_LIB_OPS_RELEASE_FILES_H_
#define CUB_LIB_OPS_RELEASE_FILES_H_

#include <string>
#include <string_view>

namespace cub::ops {

// ".yaml" for Kubernetes/YAML (and any YAML toolchain), ".txt" for AppConfig/Text, ".properties",
// ".toml", ".ini" and ".env" for AppConfig/Properties, AppConfig/TOML, AppConfig/INI and
// AppConfig/Env. A toolchain not listed gets ".yaml", as every file did before extensions varied.
std::string_view FileExtensionOf(std::string_view toolchain);

// The bundle file name of Unit `slug` of `toolchain`.
std::string BundleFileName(std::string_view slug, std::string_view toolchain);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_FILES_H_
