#include "lib/store/queued_promotions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

const std::string kQueuedSelect = absl::StrCat(
    "SELECT q.base_space_id::text AS base_space_id, s.slug AS base_space, q.stage AS stage,"
    " q.change_order_id::text AS change_order_id, co.slug AS change_order,"
    " q.queued_by::text AS queued_by_id, u.username AS queued_by, ",
    Rfc3339("q.queued_at"), " AS queued_at, q.waiting_for AS waiting_for,", " coalesce(",
    Rfc3339("q.checked_at"), ", '') AS checked_at",
    " FROM queued_promotions q JOIN spaces s ON s.id = q.base_space_id"
    " JOIN change_orders co ON co.id = q.change_order_id JOIN users u ON u.id = q.queued_by"
    " WHERE TRUE");

// waiting_for holds the gate failures one per line.
std::string JoinLines(const std::vector<std::string>& lines) { return absl::StrJoin(lines, "\n"); }

StoredQueuedPromotion QueuedFromRow(const pqxx::row& row) {
  StoredQueuedPromotion q;
  q.base_space_id = row["base_space_id"].as<std::string>();
  q.queued_by_id = row["queued_by_id"].as<std::string>();
  v1::QueuedPromotion& v = q.view;
  v.set_base_space(row["base_space"].as<std::string>());
  v.set_change_order(absl::StrCat(v.base_space(), "/", row["change_order"].as<std::string>()));
  v.set_change_order_id(row["change_order_id"].as<std::string>());
  v.set_stage(row["stage"].as<std::string>());
  v.set_queued_by(row["queued_by"].as<std::string>());
  v.set_queued_at(row["queued_at"].as<std::string>());
  v.set_checked_at(row["checked_at"].as<std::string>());
  for (absl::string_view line :
       absl::StrSplit(row["waiting_for"].as<std::string>(), '\n', absl::SkipEmpty())) {
    v.add_waiting_for(std::string(line));
  }
  return q;
}

absl::StatusOr<std::vector<StoredQueuedPromotion>> RunQueued(Tx& tx, const Query& q) {
  CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
  std::vector<StoredQueuedPromotion> out;
  for (const auto& row : r) out.push_back(QueuedFromRow(row));
  return out;
}

}  // namespace

absl::StatusOr<std::optional<StoredQueuedPromotion>> QueuePromotion(
    Tx& tx, const std::string& base_space_id, const std::string& stage,
    const std::string& change_order_id, const std::string& user_id,
    const std::vector<std::string>& waiting_for) {
  return Guard([&]() -> absl::StatusOr<std::optional<StoredQueuedPromotion>> {
    // Locks the slot first, so two callers queueing into one Stage at once are ordered and
    // each sees what it replaced.
    CUB_ASSIGN_OR_RETURN(auto before, FindQueuedPromotion(tx, base_space_id, stage));
    Pq(tx).exec_params(
        "INSERT INTO queued_promotions (base_space_id, stage, change_order_id, queued_by,"
        " waiting_for, checked_at) VALUES ($1::uuid, $2, $3::uuid, $4::uuid, $5, now())"
        " ON CONFLICT (base_space_id, stage) DO UPDATE SET change_order_id = "
        "excluded.change_order_id,"
        " queued_by = excluded.queued_by, queued_at = now(), waiting_for = excluded.waiting_for,"
        " checked_at = now()",
        base_space_id, stage, change_order_id, user_id, JoinLines(waiting_for));
    if (before && before->view.change_order_id() != change_order_id) return before;
    return std::optional<StoredQueuedPromotion>();
  });
}

absl::StatusOr<std::optional<StoredQueuedPromotion>> FindQueuedPromotion(
    Tx& tx, const std::string& base_space_id, const std::string& stage) {
  Query q(kQueuedSelect);
  q.Append(absl::StrCat(" AND q.base_space_id = ", q.Param(base_space_id),
                        "::uuid AND q.stage = ", q.Param(stage), " FOR UPDATE OF q"));
  CUB_ASSIGN_OR_RETURN(auto rows, RunQueued(tx, q));
  if (rows.empty()) return std::nullopt;
  return rows[0];
}

absl::StatusOr<std::vector<StoredQueuedPromotion>> QueuedPromotionsOf(
    Tx& tx, const std::string& change_order_id) {
  Query q(kQueuedSelect);
  q.Append(absl::StrCat(" AND q.change_order_id = ", q.Param(change_order_id), "::uuid"))
      .Prepared();
  return RunQueued(tx, q);
}

absl::StatusOr<std::vector<StoredQueuedPromotion>> ListQueuedPromotions(
    Tx& tx, const Caller& caller, const std::string& base_space_id, const std::string& where) {
  Query q(kQueuedSelect);
  if (!base_space_id.empty()) {
    q.Append(absl::StrCat(" AND q.base_space_id = ", q.Param(base_space_id), "::uuid"));
  }
  CUB_RETURN_IF_ERROR(q.AndWhere(where, QueuedPromotionSchema()));
  AndVisible(q, caller, "q.base_space_id");
  q.Append(" ORDER BY s.slug, q.queued_at");
  return RunQueued(tx, q);
}

absl::StatusOr<bool> DeleteQueuedPromotion(Tx& tx, const std::string& change_order_id,
                                           const std::string& stage) {
  return Guard([&]() -> absl::StatusOr<bool> {
    pqxx::result r = Pq(tx).exec_params(
        "DELETE FROM queued_promotions WHERE change_order_id = $1::uuid AND stage = $2",
        change_order_id, stage);
    return r.affected_rows() > 0;
  });
}

absl::Status SetQueuedWaiting(Tx& tx, const std::string& change_order_id, const std::string& stage,
                              const std::vector<std::string>& waiting_for) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE queued_promotions SET waiting_for = $3, checked_at = now()"
        " WHERE change_order_id = $1::uuid AND stage = $2",
        change_order_id, stage, JoinLines(waiting_for));
    return absl::OkStatus();
  });
}

}  // namespace cub::store
