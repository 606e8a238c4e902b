#include "lib/ops/release_verification.h"

#include <string>
#include <vector>

#include "lib/store/release_verifications.h"
#include "lib/util/status_macros.h"

namespace cub::ops {

absl::Status AttachVerifications(store::Tx& tx, const std::vector<v1::Release*>& releases) {
  if (releases.empty()) return absl::OkStatus();
  std::vector<std::string> ids;
  for (const v1::Release* r : releases) ids.push_back(r->release_id());
  CUB_ASSIGN_OR_RETURN(auto latest, store::LatestVerifications(tx, ids));
  for (v1::Release* r : releases) {
    auto it = latest.find(r->release_id());
    if (it != latest.end()) *r->mutable_verification() = it->second;
  }
  return absl::OkStatus();
}

}  // namespace cub::ops
