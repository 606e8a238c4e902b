// The clusters a Release's delivery held by the Argo CD opt-in rule (migration 0027), as
// Release.HeldClusters.
#ifndef CUB_LIB_STORE_HELD_CLUSTERS_H_
#define CUB_LIB_STORE_HELD_CLUSTERS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cub/v1/release.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct HeldClusterRow {
  std::string release_id;
  std::string cluster;
  std::string reason;  // OptInRequired
  std::string message;
};

// Inserts the rows (one statement; none for an empty list). A row already recorded for the same
// Release and cluster (by another cubd that delivered it too) is kept as it is.
absl::Status RecordHeldClusters(Tx& tx, const std::vector<HeldClusterRow>& rows);

// Fills each Release's held_clusters (by cluster name) from what was recorded, one query for
// all of them.
absl::Status AttachHeldClusters(Tx& tx, std::vector<v1::Release*> releases);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_HELD_CLUSTERS_H_
