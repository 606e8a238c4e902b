#include "lib/store/release_verifications.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {

absl::Status RecordVerifications(Tx& tx, const std::vector<NewVerification>& rows) {
  return Guard([&]() -> absl::Status {
    if (rows.empty()) return absl::OkStatus();
    std::vector<std::string> ids, digests, reasons, messages, keys;
    for (const auto& r : rows) {
      ids.push_back(r.release_id);
      digests.push_back(r.digest);
      reasons.push_back(r.reason);
      messages.push_back(r.message);
      keys.push_back(r.key_id);
    }
    Pq(tx).exec_params(
        "INSERT INTO release_verifications (release_id, digest, reason, message, key_id)"
        " SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[])",
        TextArrayLiteral(ids), TextArrayLiteral(digests), TextArrayLiteral(reasons),
        TextArrayLiteral(messages), TextArrayLiteral(keys));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::map<std::string, v1::ReleaseVerification>> LatestVerifications(
    Tx& tx, const std::vector<std::string>& release_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, v1::ReleaseVerification>> {
    std::map<std::string, v1::ReleaseVerification> out;
    if (release_ids.empty()) return out;
    pqxx::result rows = Pq(tx).exec_params(
        absl::StrCat("SELECT DISTINCT ON (release_id) release_id::text AS release_id, digest,"
                     " reason, message, key_id, ",
                     Rfc3339("checked_at"),
                     " AS checked_at FROM release_verifications"
                     " WHERE release_id = ANY($1::uuid[]) ORDER BY release_id, seq DESC"),
        TextArrayLiteral(release_ids));
    for (const auto& row : rows) {
      v1::ReleaseVerification v;
      v.set_reason(row["reason"].as<std::string>());
      v.set_message(row["message"].as<std::string>());
      v.set_digest(row["digest"].as<std::string>());
      v.set_key_id(row["key_id"].as<std::string>());
      v.set_checked_at(row["checked_at"].as<std::string>());
      out[row["release_id"].as<std::string>()] = std::move(v);
    }
    return out;
  });
}

absl::StatusOr<std::map<std::string, DeliveryEvidenceRow>> DeliveryEvidence(
    Tx& tx, const std::vector<std::string>& release_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, DeliveryEvidenceRow>> {
    std::map<std::string, DeliveryEvidenceRow> out;
    if (release_ids.empty()) return out;
    // One row per Release: its records as an array, and the Release its selector rolls back to.
    pqxx::result rows = Pq(tx).exec_params(
        "SELECT r.id::text AS release_id,"
        " coalesce((SELECT array_agg(p.envelope ORDER BY p.at, p.id) FROM promotion_records p"
        "   WHERE p.change_order_id = r.change_order_id AND p.space_id = r.space_id),"
        "   '{}') AS records,"
        " coalesce(e.id::text, '') AS rollback_id, coalesce(e.release_num, 0) AS rollback_num,"
        " coalesce(e.change_order, '') AS rollback_co,"
        " coalesce(e.sealed_approvals <> '', false) AS rollback_sealed"
        " FROM releases r LEFT JOIN releases e ON e.space_id = r.space_id"
        "   AND e.release_num = CASE WHEN r.revision_selector ~ '^Release:[0-9]{1,9}$'"
        "     THEN substr(r.revision_selector, 9)::int END"
        " WHERE r.id = ANY($1::uuid[])",
        TextArrayLiteral(release_ids));
    for (const auto& row : rows) {
      DeliveryEvidenceRow d;
      d.promotion_records = ReadTextArray(row["records"]);
      d.rollback_release_id = row["rollback_id"].as<std::string>();
      d.rollback_release_num = row["rollback_num"].as<int64_t>();
      d.rollback_change_order = row["rollback_co"].as<std::string>();
      d.rollback_sealed = row["rollback_sealed"].as<bool>();
      out[row["release_id"].as<std::string>()] = std::move(d);
    }
    return out;
  });
}

}  // namespace cub::store
