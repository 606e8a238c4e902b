#include "lib/store/freezes.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

const std::string kFreezeSelect = absl::StrCat(
    "SELECT f.id::text AS freeze_id, f.space_id::text AS space_id, s.slug AS space_slug,"
    " f.slug, f.reason, coalesce(f.change_workflow_id::text, '') AS change_workflow_id,"
    " coalesce(ws.slug || '/' || w.slug, '') AS change_workflow,"
    " coalesce(w.space_id::text, '') AS change_workflow_space_id, f.stages,"
    " coalesce(",
    Rfc3339("f.starts_at"), ", '') AS starts_at, coalesce(", Rfc3339("f.ends_at"),
    ", '') AS ends_at, f.cron, f.duration_seconds, f.time_zone, f.created_by_name, ",
    Rfc3339("f.created_at"),
    " AS created_at FROM freezes f JOIN spaces s ON s.id = f.space_id"
    " LEFT JOIN change_workflows w ON w.id = f.change_workflow_id"
    " LEFT JOIN spaces ws ON ws.id = w.space_id WHERE TRUE");

StoredFreeze FreezeFromRow(const pqxx::row& r) {
  StoredFreeze f;
  f.id = r["freeze_id"].as<std::string>();
  f.space_id = r["space_id"].as<std::string>();
  f.space_slug = r["space_slug"].as<std::string>();
  f.slug = r["slug"].as<std::string>();
  f.reason = r["reason"].as<std::string>();
  f.change_workflow_id = r["change_workflow_id"].as<std::string>();
  f.change_workflow = r["change_workflow"].as<std::string>();
  f.change_workflow_space_id = r["change_workflow_space_id"].as<std::string>();
  f.stages = ReadTextArray(r["stages"]);
  f.starts_at = r["starts_at"].as<std::string>();
  f.ends_at = r["ends_at"].as<std::string>();
  f.cron = r["cron"].as<std::string>();
  f.duration_seconds = r["duration_seconds"].as<int64_t>();
  f.time_zone = r["time_zone"].as<std::string>();
  f.created_by = r["created_by_name"].as<std::string>();
  f.created_at = r["created_at"].as<std::string>();
  return f;
}

std::vector<StoredFreeze> Rows(Tx& tx, const Query& q) {
  std::vector<StoredFreeze> out;
  for (const auto& row : q.Exec(tx)) out.push_back(FreezeFromRow(row));
  return out;
}

}  // namespace

absl::StatusOr<StoredFreeze> InsertFreeze(Tx& tx, const NewFreeze& f) {
  return Guard([&]() -> absl::StatusOr<StoredFreeze> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO freezes (space_id, slug, reason, change_workflow_id, stages, starts_at,"
        " ends_at, cron, duration_seconds, time_zone, created_by, created_by_name)"
        " VALUES ($1::uuid, $2, $3, NULLIF($4, '')::uuid, $5::text[],"
        " NULLIF($6, '')::timestamptz, NULLIF($7, '')::timestamptz, $8, $9, $10,"
        " NULLIF($11, '')::uuid, $12) RETURNING id::text AS id",
        f.space_id, f.slug, f.reason, f.change_workflow_id, TextArrayLiteral(f.stages), f.starts_at,
        f.ends_at, f.cron, f.duration_seconds, f.time_zone, f.created_by_id, f.created_by);
    Query q(kFreezeSelect);
    q.Append(absl::StrCat(" AND f.id = ", q.Param(r["id"].as<std::string>()), "::uuid"));
    std::vector<StoredFreeze> rows = Rows(tx, q);
    if (rows.empty()) return absl::InternalError("the freeze just written is not there");
    return rows[0];
  });
}

absl::StatusOr<std::optional<StoredFreeze>> FindFreeze(Tx& tx, const std::string& space_id,
                                                       const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<StoredFreeze>> {
    Query q(kFreezeSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND f.space_id = ", q.Param(space_id), "::uuid AND (f.slug = ", p,
                          " OR f.id::text = ", p, ")"));
    std::vector<StoredFreeze> rows = Rows(tx, q);
    if (rows.empty()) return std::optional<StoredFreeze>();
    return std::optional<StoredFreeze>(rows[0]);
  });
}

absl::StatusOr<std::vector<StoredFreeze>> ListFreezes(Tx& tx, const Caller& caller,
                                                      const std::string& space_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<StoredFreeze>> {
    Query q(kFreezeSelect);
    if (!space_id.empty()) {
      q.Append(absl::StrCat(" AND f.space_id = ", q.Param(space_id), "::uuid"));
    }
    AndVisible(q, caller, "f.space_id");
    q.Append(" ORDER BY s.slug, f.slug");
    return Rows(tx, q);
  });
}

absl::StatusOr<std::vector<StoredFreeze>> AllFreezes(Tx& tx) {
  return Guard([&]() -> absl::StatusOr<std::vector<StoredFreeze>> {
    Query q(kFreezeSelect);
    q.Append(" ORDER BY s.slug, f.slug").Prepared();
    return Rows(tx, q);
  });
}

absl::Status DeleteFreeze(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("DELETE FROM freezes WHERE id = $1::uuid", id);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<std::string>> ChangeOrdersReaching(
    Tx& tx, const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    Query q("SELECT co.id::text AS id FROM change_orders co WHERE co.aborted_reason = ''");
    if (!space_ids.empty()) {
      q.Append(absl::StrCat(" AND co.in_scope_space_ids && ", q.Param(TextArrayLiteral(space_ids)),
                            "::uuid[]"));
    }
    std::vector<std::string> out;
    for (const auto& row : q.Exec(tx)) out.push_back(row["id"].as<std::string>());
    return out;
  });
}

}  // namespace cub::store
