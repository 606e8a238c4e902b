#include "lib/store/blocks.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {

absl::StatusOr<int64_t> BlockChangeOrder(Tx& tx, const std::string& change_order_id,
                                         const std::string& user_id,
                                         const std::string& start_tag_id,
                                         const std::string& end_tag_id) {
  return Guard([&]() -> absl::StatusOr<int64_t> {
    Pq(tx).exec_params(
        "UPDATE change_orders SET blocked_at = now(), blocked_by = NULLIF($2, '')::uuid,"
        " updated_at = now(), version = version + 1 WHERE id = $1::uuid",
        change_order_id, user_id);
    Pq(tx).exec_params("DELETE FROM blocked_content WHERE change_order_id = $1::uuid",
                       change_order_id);
    // Each Unit the end Tag marks, anywhere, whose end data differs from its start data (a
    // Unit the change did not change brought nothing).
    pqxx::result r = Pq(tx).exec_params(
        "INSERT INTO blocked_content (change_order_id, space_id, unit_id, unit_slug, data_hash)"
        " SELECT $1::uuid, u.space_id, u.id, u.slug, er.data_hash"
        " FROM tag_marks em JOIN units u ON u.id = em.unit_id"
        " JOIN revisions er ON er.unit_id = em.unit_id AND er.revision_num = em.revision_num"
        " LEFT JOIN revisions sr ON sr.unit_id = em.unit_id AND sr.revision_num ="
        " (SELECT sm.revision_num FROM tag_marks sm WHERE sm.tag_id = $2::uuid"
        " AND sm.unit_id = em.unit_id)"
        " WHERE em.tag_id = $3::uuid AND sr.data_hash IS DISTINCT FROM er.data_hash",
        change_order_id, start_tag_id, end_tag_id);
    return static_cast<int64_t>(r.affected_rows());
  });
}

absl::Status UnblockChangeOrder(Tx& tx, const std::string& change_order_id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE change_orders SET blocked_at = NULL, blocked_by = NULL, updated_at = now(),"
        " version = version + 1 WHERE id = $1::uuid",
        change_order_id);
    Pq(tx).exec_params("DELETE FROM blocked_content WHERE change_order_id = $1::uuid",
                       change_order_id);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<std::string>> OpenChangeOrderIds(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    std::vector<std::string> ids;
    for (const auto& row :
         Pq(tx).exec("SELECT id::text AS id FROM change_orders"
                     " WHERE aborted_reason = '' AND stage <> 'Completed' ORDER BY id")) {
      ids.push_back(row["id"].as<std::string>());
    }
    return ids;
  });
}

absl::StatusOr<std::vector<BlockedHit>> FindBlockedContent(
    Tx& tx, const std::vector<PlannedContent>& planned, bool head_runs) {
  std::vector<BlockedHit> hits;
  if (planned.empty()) return hits;
  // Usually no ChangeOrder is blocked at all: then nothing can match, and the planned rows
  // (six arrays the size of a batch of a Stage) need not be sent.
  CUB_ASSIGN_OR_RETURN(bool any_blocked, Guard([&]() -> absl::StatusOr<bool> {
                         return Pq(tx)
                             .exec(
                                 "SELECT EXISTS (SELECT 1 FROM blocked_content b"
                                 " JOIN change_orders co ON co.id = b.change_order_id"
                                 " WHERE co.blocked_at IS NOT NULL)")[0][0]
                             .as<bool>();
                       }));
  if (!any_blocked) return hits;
  std::vector<std::string> idx, space_ids, slugs, hashes, source_ids, source_nums;
  for (size_t i = 0; i < planned.size(); ++i) {
    const auto& p = planned[i];
    idx.push_back(std::to_string(i));
    space_ids.push_back(p.space_id);
    slugs.push_back(p.unit_slug);
    hashes.push_back(p.data_hash);
    source_ids.push_back(p.source_unit_id);
    source_nums.push_back(std::to_string(p.source_num));
  }
  return Guard([&]() -> absl::StatusOr<std::vector<BlockedHit>> {
    // The planned rows with the DataHash of the upstream revision each merges from, matched
    // against the content of blocked ChangeOrders, less what the Space runs already. The
    // matches come first (MATERIALIZED): the checks of what runs apply to them only. Left to
    // the planner, the head check was hashed over every Unit's head revision of the fleet on
    // each call, before the (usually empty) match: O(fleet) per batch of a large Stage.
    pqxx::result r = Pq(tx).exec_params(
        "WITH p AS ("
        " SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[],"
        " $6::bigint[]) AS p(idx, space_id, unit_slug, data_hash, source_unit_id, source_num)),"
        " ph AS (SELECT p.*, sr.data_hash AS source_hash FROM p LEFT JOIN revisions sr"
        " ON sr.unit_id = NULLIF(p.source_unit_id, '')::uuid AND sr.revision_num = p.source_num),"
        " hit AS MATERIALIZED (SELECT ph.idx, ph.space_id, ph.unit_slug,"
        " ph.data_hash AS planned_hash, b.data_hash, co.id AS co_id, co.blocked_at,"
        " cs.slug AS base_slug, co.slug, co.aborted_reason"
        " FROM ph JOIN blocked_content b"
        " ON b.data_hash = ph.data_hash OR b.data_hash = ph.source_hash"
        " JOIN change_orders co ON co.id = b.change_order_id AND co.blocked_at IS NOT NULL"
        " JOIN spaces cs ON cs.id = co.space_id)"
        " SELECT DISTINCT ON (h.idx) h.idx, h.data_hash,"
        " (h.data_hash IS DISTINCT FROM h.planned_hash) AS via_source, h.co_id::text AS co_id,"
        " h.base_slug, h.slug, h.aborted_reason"
        " FROM hit h"
        " WHERE NOT ($7::boolean AND EXISTS (SELECT 1 FROM units u JOIN revisions hr"
        " ON hr.unit_id = u.id AND hr.revision_num = u.head_revision_num"
        " WHERE u.space_id = h.space_id AND u.slug = h.unit_slug"
        " AND hr.data_hash = h.planned_hash))"
        " AND NOT EXISTS (SELECT 1 FROM release_units ru WHERE ru.release_id = ("
        " SELECT r.id FROM releases r WHERE r.space_id = h.space_id"
        " ORDER BY r.published_at DESC, r.release_num DESC LIMIT 1)"
        " AND ru.unit_slug = h.unit_slug AND ru.data_hash = h.planned_hash)"
        " ORDER BY h.idx, h.blocked_at, h.co_id",
        TextArrayLiteral(idx), TextArrayLiteral(space_ids), TextArrayLiteral(slugs),
        TextArrayLiteral(hashes), TextArrayLiteral(source_ids), TextArrayLiteral(source_nums),
        head_runs);
    for (const auto& row : r) {
      BlockedHit h;
      h.index = row["idx"].as<size_t>();
      h.data_hash = row["data_hash"].as<std::string>();
      h.via_source = row["via_source"].as<bool>();
      h.change_order_id = row["co_id"].as<std::string>();
      h.base_slug = row["base_slug"].as<std::string>();
      h.slug = row["slug"].as<std::string>();
      h.change_order = absl::StrCat(h.base_slug, "/", h.slug);
      h.reason = row["aborted_reason"].as<std::string>();
      hits.push_back(std::move(h));
    }
    return hits;
  });
}

}  // namespace cub::store
