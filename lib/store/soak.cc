#include "lib/store/soak.h"

#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {

absl::StatusOr<std::map<std::string, SoakState>> SoakStates(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, SoakState>> {
    pqxx::result r = Pq(tx).exec_params(
        "WITH latest AS ("
        "  SELECT DISTINCT ON (r.space_id) r.id, r.space_id, r.release_num, r.bundle_digest,"
        "  r.sync_status, r.health_status, r.operation_state"
        "  FROM releases r WHERE r.space_id = ANY($3::uuid[])"
        "  ORDER BY r.space_id, r.published_at DESC, r.release_num DESC)"
        " SELECT s.id::text AS space_id, s.release_target_id IS NOT NULL AS has_target,"
        " l.release_num, l.bundle_digest, l.sync_status, l.health_status, l.operation_state,"
        // Carries the change: the rule of SpacesReleasing.
        " (l.id IS NOT NULL"
        "  AND EXISTS (SELECT 1 FROM tag_marks tm JOIN units tu ON tu.id = tm.unit_id"
        "              WHERE tm.tag_id = $2::uuid AND tu.space_id = s.id)"
        "  AND NOT EXISTS ("
        "   SELECT 1 FROM tag_marks mp JOIN units u ON u.id = mp.unit_id"
        "   LEFT JOIN tag_marks ms ON ms.tag_id = $1::uuid AND ms.unit_id = u.id"
        "   LEFT JOIN release_units ru ON ru.release_id = l.id AND ru.unit_id = u.id"
        "   WHERE mp.tag_id = $2::uuid AND u.space_id = s.id"
        "   AND ms.revision_num IS DISTINCT FROM mp.revision_num"
        "   AND (ru.revision_num IS NULL OR ru.revision_num < mp.revision_num))) AS carries,"
        " (extract(epoch FROM d.healthy_at) * 1000000)::bigint AS healthy_micros"
        " FROM spaces s LEFT JOIN latest l ON l.space_id = s.id"
        " LEFT JOIN LATERAL (SELECT dd.healthy_at FROM deployments dd"
        "   WHERE dd.release_id = l.id AND dd.space_id = s.id AND dd.ended_at IS NULL"
        "   ORDER BY dd.started_at DESC LIMIT 1) d ON TRUE"
        " WHERE s.id = ANY($3::uuid[])",
        start_tag_id, publish_tag_id, TextArrayLiteral(space_ids));
    std::map<std::string, SoakState> out;
    for (const auto& row : r) {
      SoakState st;
      st.has_target = row["has_target"].as<bool>();
      if (!row["release_num"].is_null()) {
        st.release_num = row["release_num"].as<int64_t>();
        st.bundle_digest = row["bundle_digest"].as<std::string>();
        st.sync = row["sync_status"].as<std::string>();
        st.health = row["health_status"].as<std::string>();
        st.operation = row["operation_state"].as<std::string>();
        st.carries = row["carries"].as<bool>();
      }
      if (!row["healthy_micros"].is_null()) {
        st.healthy_since = absl::FromUnixMicros(row["healthy_micros"].as<int64_t>());
      }
      out[row["space_id"].as<std::string>()] = std::move(st);
    }
    return out;
  });
}

}  // namespace cub::store
