#include "lib/store/promotion_records.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {

absl::Status InsertPromotionRecords(Tx& tx, const std::vector<NewPromotionRecord>& records) {
  if (records.empty()) return absl::OkStatus();
  std::vector<std::string> co_ids, cos, space_ids, slugs, stages, by, queued, forced, at, envs,
      digests;
  for (const auto& r : records) {
    co_ids.push_back(r.change_order_id);
    cos.push_back(r.change_order);
    space_ids.push_back(r.space_id);
    slugs.push_back(r.space_slug);
    stages.push_back(r.stage);
    by.push_back(r.promoted_by);
    queued.push_back(r.queued_by);
    forced.push_back(r.forced ? "true" : "false");
    at.push_back(r.at);
    envs.push_back(r.envelope);
    digests.push_back(r.statement_digest);
  }
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "INSERT INTO promotion_records (change_order_id, change_order, space_id, space_slug,"
        " stage, promoted_by, queued_by, forced, at, envelope, statement_digest)"
        " SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[],"
        " $6::text[], $7::text[], $8::boolean[], $9::timestamptz[], $10::text[], $11::text[])",
        TextArrayLiteral(co_ids), TextArrayLiteral(cos), TextArrayLiteral(space_ids),
        TextArrayLiteral(slugs), TextArrayLiteral(stages), TextArrayLiteral(by),
        TextArrayLiteral(queued), TextArrayLiteral(forced), TextArrayLiteral(at),
        TextArrayLiteral(envs), TextArrayLiteral(digests));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::PromotionRecord>> ListPromotionRecords(
    Tx& tx, const std::string& change_order_id, const std::string& space, const Keyset& page) {
  Query q(absl::StrCat(
      "SELECT id::text AS id, change_order_id::text AS change_order_id, change_order,"
      " space_id::text AS space_id, space_slug, stage, promoted_by, queued_by, forced, ",
      Rfc3339("at"),
      " AS at, statement_digest, envelope FROM promotion_records WHERE change_order_id = "));
  q.Append(absl::StrCat(q.Param(change_order_id), "::uuid"));
  if (!space.empty()) {
    q.Append(absl::StrCat(" AND ", SlugOrId(q, "space_slug", "space_id", space)));
  }
  if (!page.after.empty()) {
    // The key is the ID; the sort columns before it are read back from its (append-only) row,
    // which must belong to the same ChangeOrder: a forged token naming another one's record
    // yields no row rather than a glimpse of its time and Space.
    q.Append(absl::StrCat(" AND (at, space_slug, id) > (SELECT k.at, k.space_slug, k.id FROM",
                          " promotion_records k WHERE k.id = ", q.Param(page.after[0]),
                          "::uuid AND k.change_order_id = ", q.Param(change_order_id), "::uuid)"));
  }
  OrderAndLimit(q, page, "at, space_slug, id");
  CUB_ASSIGN_OR_RETURN(pqxx::result rows, q.Run(tx));
  std::vector<v1::PromotionRecord> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    v1::PromotionRecord r;
    r.set_record_id(row["id"].as<std::string>());
    r.set_change_order_id(row["change_order_id"].as<std::string>());
    r.set_change_order(row["change_order"].as<std::string>());
    r.set_space_id(row["space_id"].as<std::string>());
    r.set_space(row["space_slug"].as<std::string>());
    r.set_stage(row["stage"].as<std::string>());
    r.set_promoted_by(row["promoted_by"].as<std::string>());
    r.set_queued_by(row["queued_by"].as<std::string>());
    r.set_forced(row["forced"].as<bool>());
    r.set_at(row["at"].as<std::string>());
    r.set_statement_digest(row["statement_digest"].as<std::string>());
    r.set_envelope(row["envelope"].as<std::string>());
    out.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<std::vector<UnitHead>> UnitHeads(Tx& tx, const std::vector<std::string>& unit_ids) {
  if (unit_ids.empty()) return std::vector<UnitHead>();
  return Guard([&]() -> absl::StatusOr<std::vector<UnitHead>> {
    // The head's hash by a primary-key probe per Unit: as a join, the planner could hash every
    // revision of the fleet for a batch of 5,000 Units (270 ms a batch at 10,000 Spaces).
    pqxx::result rows = Pq(tx).exec_params(
        "SELECT u.id::text AS id, u.space_id::text AS space_id, u.slug, u.head_revision_num,"
        " coalesce((SELECT r.data_hash FROM revisions r WHERE r.unit_id = u.id"
        " AND r.revision_num = u.head_revision_num), '') AS data_hash"
        " FROM units u WHERE u.id = ANY($1::uuid[]) ORDER BY u.space_id, u.slug",
        TextArrayLiteral(unit_ids));
    std::vector<UnitHead> out;
    out.reserve(rows.size());
    for (const auto& row : rows) {
      UnitHead h;
      h.unit_id = row["id"].as<std::string>();
      h.space_id = row["space_id"].as<std::string>();
      h.slug = row["slug"].as<std::string>();
      h.revision_num = row["head_revision_num"].as<int64_t>();
      h.data_hash = row["data_hash"].as<std::string>();
      out.push_back(std::move(h));
    }
    return out;
  });
}

}  // namespace cub::store
