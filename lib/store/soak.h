// What the Soaked gate reads about each Space: the Space's latest Release, whether it carries
// the change, its live status and since when its current deployment has been Healthy (the
// deployment history of migrations/0009: a Degraded report ends the Release's entry, and the
// next Healthy report opens a new one healthy from then, so the healthy time restarts).
#ifndef CUB_LIB_STORE_SOAK_H_
#define CUB_LIB_STORE_SOAK_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct SoakState {
  bool has_target = false;  // the Space has a release Target
  // The Space's latest Release (0: it has none) and whether it carries the change, by the rule
  // of SpacesReleasing (releases.h).
  int64_t release_num = 0;
  bool carries = false;
  std::string bundle_digest;
  // Its live status as last reported.
  std::string sync, health, operation;
  // The healthy time of that Release's current (not ended) deployment entry; unset when it has
  // none, or the entry has not been reported Healthy yet.
  std::optional<absl::Time> healthy_since;
};

// For each of `space_ids` (a Space that no longer exists is missing), in one query.
absl::StatusOr<std::map<std::string, SoakState>> SoakStates(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_SOAK_H_
