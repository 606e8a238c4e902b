#include "lib/store/units.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// A Unit with its Space's slug and its head's data hash; callers append " AND ..." to it.
const std::string kUnitSelect = absl::StrCat(
    "SELECT u.id AS unit_id, u.space_id AS space_id, s.slug AS space_slug, u.slug AS slug,"
    " u.toolchain_type AS toolchain_type, ",
    MapAsArray("u.labels"), " AS labels, ", MapAsArray("u.annotations"),
    " AS annotations, u.head_revision_num AS head_revision_num,"
    " u.last_released_revision_num AS last_released_revision_num,"
    " coalesce(u.upstream_unit_id::text, '') AS upstream_unit_id,"
    " coalesce(hr.data_hash, '') AS data_hash, ",
    Rfc3339("u.created_at"), " AS created_at, ", Rfc3339("u.updated_at"),
    " AS updated_at, u.version AS version, coalesce(u.change_set_id::text, '') AS change_set_id,"
    " u.protected_paths AS protected_paths"
    " FROM units u JOIN spaces s ON s.id = u.space_id"
    " LEFT JOIN components c ON c.id = s.component_id"
    " LEFT JOIN revisions hr ON hr.unit_id = u.id AND hr.revision_num = u.head_revision_num"
    " WHERE TRUE");

// A row of kUnitSelect.
v1::Unit UnitFromRow(const pqxx::row& row) {
  v1::Unit u;
  u.set_unit_id(row["unit_id"].as<std::string>());
  u.set_space_id(row["space_id"].as<std::string>());
  u.set_space_slug(row["space_slug"].as<std::string>());
  u.set_slug(row["slug"].as<std::string>());
  u.set_toolchain_type(row["toolchain_type"].as<std::string>());
  FillMap(ReadMap(row["labels"]), u.mutable_labels());
  FillMap(ReadMap(row["annotations"]), u.mutable_annotations());
  u.set_head_revision_num(row["head_revision_num"].as<int64_t>());
  u.set_last_released_revision_num(row["last_released_revision_num"].as<int64_t>());
  u.set_upstream_unit_id(row["upstream_unit_id"].as<std::string>());
  u.set_data_hash(row["data_hash"].as<std::string>());
  u.set_created_at(row["created_at"].as<std::string>());
  u.set_updated_at(row["updated_at"].as<std::string>());
  u.set_version(row["version"].as<int64_t>());
  u.set_change_set_id(row["change_set_id"].as<std::string>());
  for (auto& path : ReadTextArray(row["protected_paths"])) u.add_protected_paths(path);
  return u;
}

// A Revision with its author's name; conflicts come as a flat text[] of (path, reason,
// upstream value, downstream value) quadruples. Callers append " AND ..." to it.
const std::string kRevisionSelect = absl::StrCat(
    "SELECT r.id AS revision_id, r.unit_id AS unit_id, r.space_id AS space_id,"
    " r.revision_num AS revision_num, r.data AS data, r.data_hash AS data_hash,"
    " coalesce(r.author_id::text, '') AS author_id, coalesce(a.username, '') AS author,"
    " r.description AS description, coalesce(r.upstream_unit_id::text, '') AS upstream_unit_id,"
    " r.upstream_revision_num AS upstream_revision_num, r.restored_from_num AS restored_from_num,"
    " ARRAY(SELECT jsonb_array_elements_text(r.validation_errors)) AS validation_errors, ",
    Rfc3339("r.created_at"),
    " AS created_at, coalesce(r.change_set_id::text, '') AS change_set_id,"
    " ARRAY(SELECT x FROM jsonb_array_elements(r.conflicts) c, LATERAL (VALUES"
    " (c->>'Path'), (c->>'Reason'), (coalesce(c->>'UpstreamValue', '')),"
    " (coalesce(c->>'DownstreamValue', ''))) v(x)) AS conflicts,"
    " coalesce(r.change_order_id::text, '') AS change_order_id",
    " FROM revisions r LEFT JOIN users a ON a.id = r.author_id WHERE TRUE");

// A row of kRevisionSelect.
v1::Revision RevisionFromRow(const pqxx::row& row) {
  v1::Revision v;
  v.set_revision_id(row["revision_id"].as<std::string>());
  v.set_unit_id(row["unit_id"].as<std::string>());
  v.set_space_id(row["space_id"].as<std::string>());
  v.set_revision_num(row["revision_num"].as<int64_t>());
  v.set_data(row["data"].as<std::string>());
  v.set_data_hash(row["data_hash"].as<std::string>());
  v.set_author_id(row["author_id"].as<std::string>());
  v.set_author(row["author"].as<std::string>());
  v.set_description(row["description"].as<std::string>());
  v.set_upstream_unit_id(row["upstream_unit_id"].as<std::string>());
  v.set_upstream_revision_num(row["upstream_revision_num"].as<int64_t>());
  v.set_restored_from_num(row["restored_from_num"].as<int64_t>());
  for (auto& e : ReadTextArray(row["validation_errors"])) v.add_validation_errors(e);
  v.set_created_at(row["created_at"].as<std::string>());
  v.set_change_set_id(row["change_set_id"].as<std::string>());
  std::vector<std::string> flat = ReadTextArray(row["conflicts"]);
  for (size_t i = 0; i + 3 < flat.size(); i += 4) {
    v1::Conflict* c = v.add_conflicts();
    c->set_path(flat[i]);
    c->set_reason(flat[i + 1]);
    c->set_upstream_value(flat[i + 2]);
    c->set_downstream_value(flat[i + 3]);
  }
  v.set_change_order_id(row["change_order_id"].as<std::string>());
  return v;
}

std::vector<v1::Revision> RevisionsFromResult(const pqxx::result& r) {
  std::vector<v1::Revision> out;
  out.reserve(r.size());
  for (const auto& row : r) out.push_back(RevisionFromRow(row));
  return out;
}

}  // namespace

absl::StatusOr<v1::Unit> InsertUnit(Tx& tx, const NewUnit& nu) {
  return Guard([&]() -> absl::StatusOr<v1::Unit> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO units (space_id, slug, toolchain_type, labels, annotations)"
        " VALUES ($1::uuid, $2, $3, $4::jsonb, $5::jsonb) RETURNING id",
        nu.space_id, nu.slug, nu.toolchain_type, JsonText(nu.labels), JsonText(nu.annotations));
    CUB_ASSIGN_OR_RETURN(auto u, FindUnit(tx, nu.space_id, r["id"].as<std::string>()));
    if (!u) return absl::InternalError("unit vanished after insert");
    return *u;
  });
}

absl::Status LockUnit(Tx& tx, const std::string& unit_id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("SELECT 1 FROM units WHERE id = $1::uuid FOR UPDATE", unit_id);
    return absl::OkStatus();
  });
}

absl::StatusOr<v1::Revision> AppendRevision(Tx& tx, const std::string& unit_id,
                                            const NewRevision& rev) {
  return Guard([&]() -> absl::StatusOr<v1::Revision> {
    // The UPDATE takes the Unit's row lock: concurrent writers queue here and each sees the
    // head the previous one left.
    pqxx::result head = Pq(tx).exec_params(
        "UPDATE units SET head_revision_num = head_revision_num + 1, updated_at = now(),"
        " version = version + 1 WHERE id = $1::uuid"
        " AND ($2::bigint = 0 OR head_revision_num = $2::bigint)"
        " RETURNING head_revision_num, space_id",
        unit_id, rev.expected_head);
    if (head.empty()) {
      return absl::AbortedError(absl::StrCat("unit head is no longer revision ", rev.expected_head,
                                             "; someone else wrote it, read it again"));
    }
    int64_t num = head[0]["head_revision_num"].as<int64_t>();
    Pq(tx).exec_params(
        "INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash, author_id,"
        " description, restored_from_num, change_set_id, upstream_unit_id, upstream_revision_num,"
        " conflicts, validation_errors, change_order_id) VALUES ($1::uuid, $2::uuid, $3, $4, $5,"
        " NULLIF($6, '')::uuid, $7, $8, NULLIF($9, '')::uuid, NULLIF($10, '')::uuid, $11,"
        " $12::jsonb, $13::jsonb, NULLIF($14, '')::uuid)",
        unit_id, head[0]["space_id"].as<std::string>(), num, rev.data, rev.data_hash, rev.author_id,
        rev.description, rev.restored_from_num, rev.change_set_id, rev.upstream_unit_id,
        rev.upstream_revision_num, rev.conflicts_json, JsonText(rev.validation_errors),
        rev.change_order_id);
    CUB_ASSIGN_OR_RETURN(auto v, FindRevision(tx, unit_id, num));
    if (!v) return absl::InternalError("revision vanished after insert");
    return *v;
  });
}

absl::StatusOr<std::optional<v1::Unit>> FindUnit(Tx& tx, const std::string& space_id,
                                                 const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Unit>> {
    Query q(kUnitSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND u.space_id = ", q.Param(space_id), "::uuid AND (u.slug = ", p,
                          " OR u.id::text = ", p, ")"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return UnitFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Unit>> ListUnits(Tx& tx, const Caller& caller, const UnitQuery& uq) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Unit>> {
    Query q(kUnitSelect);
    if (!uq.space_id.empty()) {
      q.Append(absl::StrCat(" AND u.space_id = ", q.Param(uq.space_id), "::uuid"));
    }
    if (!uq.space_ids.empty()) {
      q.Append(absl::StrCat(" AND u.space_id = ANY(", q.Param(TextArrayLiteral(uq.space_ids)),
                            "::uuid[])"));
    }
    AndVisible(q, caller, "u.space_id");
    CUB_RETURN_IF_ERROR(q.AndWhere(uq.where, UnitSchema()));
    CUB_RETURN_IF_ERROR(q.AndWhere(uq.filter_where, UnitSchema()));
    CUB_RETURN_IF_ERROR(q.AndWhere(uq.where_space, SpaceSchema()));
    AndAfterKey(q, uq.page, "s.slug, u.slug", {"text", "text"});
    OrderAndLimit(q, uq.page, "s.slug, u.slug");
    std::vector<v1::Unit> out;
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    out.reserve(r.size());
    for (const auto& row : r) out.push_back(UnitFromRow(row));
    return out;
  });
}

absl::Status UpdateUnitMetadata(Tx& tx, const std::string& unit_id, const UnitChanges& c) {
  if (c.labels.empty() && c.annotations.empty()) return absl::OkStatus();
  return Guard([&]() -> absl::Status {
    Query q("UPDATE units SET updated_at = now(), version = version + 1");
    if (!c.labels.empty()) {
      q.Append(absl::StrCat(", labels = ", MergeMapExpr(q, "labels", c.labels)));
    }
    if (!c.annotations.empty()) {
      q.Append(absl::StrCat(", annotations = ", MergeMapExpr(q, "annotations", c.annotations)));
    }
    q.Append(absl::StrCat(" WHERE id = ", q.Param(unit_id), "::uuid"));
    CUB_RETURN_IF_ERROR(q.Run(tx));
    return absl::OkStatus();
  });
}

absl::Status DeleteUnit(Tx& tx, const v1::Unit& unit) {
  return Guard([&]() -> absl::Status {
    pqxx::result deps = Pq(tx).exec_params(
        "SELECT s.slug || '/' || fu.slug AS unit FROM links l"
        " JOIN units fu ON fu.id = l.from_unit_id"
        " JOIN spaces s ON s.id = fu.space_id WHERE l.to_unit_id = $1::uuid ORDER BY 1",
        unit.unit_id());
    if (!deps.empty()) {
      std::vector<std::string> names;
      for (const auto& row : deps) names.push_back(row["unit"].as<std::string>());
      return absl::FailedPreconditionError(absl::StrCat(
          "unit '", unit.slug(), "' is linked from downstream units: ", absl::StrJoin(names, ", "),
          "; delete those first"));
    }
    Pq(tx).exec_params("DELETE FROM units WHERE id = $1::uuid", unit.unit_id());
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<v1::Revision>> FindRevision(Tx& tx, const std::string& unit_id,
                                                         int64_t num) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Revision>> {
    Query q(kRevisionSelect);
    q.Append(absl::StrCat(" AND r.unit_id = ", q.Param(unit_id), "::uuid AND r.revision_num = ",
                          q.Param(std::to_string(num)), "::bigint"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return RevisionFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Revision>> RevisionRange(Tx& tx, const std::string& unit_id,
                                                        int64_t first, int64_t last) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Revision>> {
    Query q(kRevisionSelect);
    q.Append(absl::StrCat(" AND r.unit_id = ", q.Param(unit_id),
                          "::uuid AND r.revision_num BETWEEN ", q.Param(std::to_string(first)),
                          "::bigint AND ", q.Param(std::to_string(last)),
                          "::bigint ORDER BY r.revision_num"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return RevisionsFromResult(r);
  });
}

absl::Status ChangeProtectedPaths(Tx& tx, const std::string& unit_id,
                                  const std::vector<std::string>& add,
                                  const std::vector<std::string>& remove) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE units SET protected_paths = ARRAY(SELECT DISTINCT p FROM unnest(protected_paths"
        " || $2::text[]) p WHERE p <> ALL($3::text[]) ORDER BY p), updated_at = now(),"
        " version = version + 1 WHERE id = $1::uuid",
        unit_id, TextArrayLiteral(add), TextArrayLiteral(remove));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::Revision>> ListRevisions(Tx& tx, const std::string& unit_id,
                                                        std::string_view where,
                                                        const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Revision>> {
    Query q(kRevisionSelect);
    q.Append(absl::StrCat(" AND r.unit_id = ", q.Param(unit_id), "::uuid"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, RevisionSchema()));
    AndAfterKey(q, page, "r.revision_num", {"bigint"});
    OrderAndLimit(q, page, "r.revision_num");
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return RevisionsFromResult(r);
  });
}

}  // namespace cub::store
