#include "lib/store/soak.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/release_sql.h"
#include "lib/store/sql.h"

namespace cub::store {

absl::StatusOr<std::map<std::string, SoakState>> SoakStates(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, SoakState>> {
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat(
            "WITH latest AS ("
            "  SELECT DISTINCT ON (r.space_id) r.id, r.space_id, r.release_num, r.bundle_digest,"
            "  r.sync_status, r.health_status, r.operation_state"
            "  FROM releases r WHERE r.space_id = ANY($3::uuid[])"
            "  ORDER BY r.space_id, r.published_at DESC, r.release_num DESC)"
            " SELECT s.id::text AS space_id, s.release_target_id IS NOT NULL AS has_target,"
            " c.release_num, c.bundle_digest, c.sync_status, c.health_status, c.operation_state,"
            " (c.id IS NOT NULL AND ",
            internal::kReleaseCarriesChange,
            ") AS carries,"
            " (extract(epoch FROM d.healthy_at) * 1000000)::bigint AS healthy_micros"
            " FROM spaces s LEFT JOIN latest c ON c.space_id = s.id"
            " LEFT JOIN LATERAL (SELECT dd.healthy_at FROM deployments dd"
            "   WHERE dd.release_id = c.id AND dd.space_id = s.id AND dd.ended_at IS NULL"
            "   ORDER BY dd.started_at DESC LIMIT 1) d ON TRUE"
            " WHERE s.id = ANY($3::uuid[])"),
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
