// The bundle digest of a Release: one value naming exactly the files a Target is handed, so a
// signed record can name them and anyone holding the files (a Target's directory, an OCI
// artifact's layer) can check it.
//
//   "sha256:" + hex SHA-256 of the lines "<name>\n<hex SHA-256 of the content>\n", one pair per
//   file in byte order of the names.
//
// Pure; thread-safe.
#ifndef CUB_LIB_UTIL_BUNDLE_DIGEST_H_
#define CUB_LIB_UTIL_BUNDLE_DIGEST_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cub {

// One file: its name and its content.
using NamedContent = std::pair<std::string_view, std::string_view>;

// The bundle digest of `files` (in any order; names are expected to be distinct).
std::string BundleDigestOf(std::vector<NamedContent> files);

}  // namespace cub

#endif  // CUB_LIB_UTIL_BUNDLE_DIGEST_H_
