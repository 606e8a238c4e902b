#include "lib/store/held_clusters.h"

#include <map>

#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {

absl::Status RecordHeldClusters(Tx& tx, const std::vector<HeldClusterRow>& rows) {
  if (rows.empty()) return absl::OkStatus();
  return Guard([&]() -> absl::Status {
    std::vector<std::string> ids, clusters, reasons, messages;
    for (const HeldClusterRow& r : rows) {
      ids.push_back(r.release_id);
      clusters.push_back(r.cluster);
      reasons.push_back(r.reason);
      messages.push_back(r.message);
    }
    Pq(tx).exec_params(
        "INSERT INTO release_held_clusters (release_id, cluster, reason, message)"
        " SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])"
        " ON CONFLICT (release_id, cluster) DO NOTHING",
        TextArrayLiteral(ids), TextArrayLiteral(clusters), TextArrayLiteral(reasons),
        TextArrayLiteral(messages));
    return absl::OkStatus();
  });
}

absl::Status AttachHeldClusters(Tx& tx, std::vector<v1::Release*> releases) {
  if (releases.empty()) return absl::OkStatus();
  return Guard([&]() -> absl::Status {
    std::vector<std::string> ids;
    std::map<std::string, v1::Release*> by_id;
    for (v1::Release* r : releases) {
      ids.push_back(r->release_id());
      by_id[r->release_id()] = r;
    }
    pqxx::result rows = Pq(tx).exec_params(
        "SELECT release_id::text AS release_id, cluster, reason, message"
        " FROM release_held_clusters WHERE release_id = ANY($1::uuid[])"
        " ORDER BY release_id, cluster",
        TextArrayLiteral(ids));
    for (const auto& row : rows) {
      v1::Release* r = by_id.at(row["release_id"].as<std::string>());
      v1::HeldCluster* h = r->add_held_clusters();
      h->set_cluster(row["cluster"].as<std::string>());
      h->set_reason(row["reason"].as<std::string>());
      h->set_message(row["message"].as<std::string>());
    }
    return absl::OkStatus();
  });
}

}  // namespace cub::store
