// The Git provider's commit messages: what a batch commit says, and how a later Deliver (looking
// for Releases an interrupted call already committed) or ReleaseAt reads back which Releases a
// commit carries. Internal to lib/targets.
//
// Format:
//   Release <N> of <space>                 (a one-Release commit), or
//   Publish <K> releases[ of <BASE/NAME>]  (the ChangeOrder when every Release shares it)
//   <blank line>
//   <description(s), if any>               (distinct ones, in batch order, blank-line separated)
//   <blank line>
//   ChangeOrder: <BASE/NAME>               (when every Release shares it)
//   Bundle-Digest: sha256:<hex>            (one-Release commits only)
//   Published-By: <username>               (one per distinct publisher)
//   Cub-Release: <release-id> <space> <N> sha256:<hex>   (one per Release, batch order)
// Trailers are read only from the message's last paragraph, so a description line that looks
// like a trailer never counts: the trailer paragraph always follows the description.

#ifndef CUB_LIB_TARGETS_GIT_MESSAGE_H_
#define CUB_LIB_TARGETS_GIT_MESSAGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/targets/provider.h"

namespace cub::targets::internal {

// The message of a commit carrying `carried` (non-empty, in batch order; all validated).
std::string BatchCommitMessage(const std::vector<const Delivery*>& carried);

struct CubReleaseTrailer {
  std::string release_id;
  std::string space;
  int64_t release_num = 0;
  std::string bundle_digest;
};

// The Cub-Release trailers of a commit message, in order; malformed ones are skipped.
std::vector<CubReleaseTrailer> ParseCubReleaseTrailers(std::string_view message);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_GIT_MESSAGE_H_
