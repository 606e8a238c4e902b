#include "lib/util/bundle_digest.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "lib/util/sha256.h"

namespace cub {

std::string BundleDigestOf(std::vector<NamedContent> files) {
  std::sort(files.begin(), files.end(),
            [](const NamedContent& a, const NamedContent& b) { return a.first < b.first; });
  std::string canonical;
  for (const auto& [name, content] : files) {
    canonical.append(name).append("\n").append(Sha256Hex(content)).append("\n");
  }
  return absl::StrCat("sha256:", Sha256Hex(canonical));
}

}  // namespace cub
