// DigestOf and IsDigest (lib/oci/registry.h) until lib/oci/registry.cc lands from the
// registry client's branch; removed when it is merged.
#include <string>
#include <string_view>

#include "lib/oci/registry.h"
#include "lib/util/sha256.h"

namespace cub::oci {

std::string DigestOf(std::string_view data) { return "sha256:" + Sha256Hex(data); }

bool IsDigest(std::string_view digest) {
  if (digest.size() != 71 || digest.substr(0, 7) != "sha256:") return false;
  for (char c : digest.substr(7)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace cub::oci
