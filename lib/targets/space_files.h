// The files cub keeps in each Space's directory besides the bundle, shared by the Directory and
// Git providers: the manifest ".cub-files" (which files cub wrote there) and, for a Git Target
// with kustomization=true, a generated kustomization.yaml. Internal to lib/targets.
//
// Manifest format: a first line
//   # cub: files of space <space>, release <N>; cub removes a file listed here when a later
//   release drops it
// (one line), then one file name per line, sorted, each ending in '\n'. It lists the bundle's
// files and kustomization.yaml when cub generated it, never itself. A later Deliver removes
// exactly the listed files that its bundle lacks, so files somebody else put beside them stay.
//
// A directory without a manifest was written by a cub from before manifests: there, cub's files
// are the direct *.yaml children (except kustomization.yaml, which that cub never generated), as
// the old rule said, so existing directories upgrade without leaving stale files behind.

#ifndef CUB_LIB_TARGETS_SPACE_FILES_H_
#define CUB_LIB_TARGETS_SPACE_FILES_H_

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lib/targets/provider.h"

namespace cub::targets::internal {

inline constexpr char kManifestName[] = ".cub-files";
inline constexpr char kKustomizationName[] = "kustomization.yaml";

// The manifest's text for `names` (sorted by the set).
std::string ManifestContent(const std::string& space, int64_t release_num,
                            const std::set<std::string>& names);

// The names a manifest lists. Lines that are empty, start with '#', or are not plain file names
// (contain '/' or NUL, start with '.') are ignored, so a hand-edited manifest cannot make cub
// remove anything outside the directory.
std::set<std::string> ParseManifest(std::string_view content);

// Whether `name` was cub's under the rule for directories without a manifest.
bool OwnedWithoutManifest(const std::string& name);

// A kustomization.yaml listing the bundle's *.yaml files (sorted) as resources.
std::string KustomizationContent(const Delivery& d);

// The names cub writes for `d`: the bundle's, plus kustomization.yaml when `kustomization`.
std::set<std::string> NamesWritten(const Delivery& d, bool kustomization);

// INVALID_ARGUMENT when a file of `d` has a name the provider writes itself with these settings
// (kustomization.yaml with kustomization=true). ValidateDelivery covers the rest of the names.
absl::Status CheckReservedNames(const Delivery& d, bool kustomization, const std::string& prefix);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_SPACE_FILES_H_
