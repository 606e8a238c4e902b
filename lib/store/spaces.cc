#include "lib/store/spaces.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

const std::string kSpaceSelect =
    absl::StrCat("SELECT s.id, s.slug, s.display_name, ", MapAsArray("s.labels"), ", ",
                 MapAsArray("s.annotations"),
                 ", coalesce(s.component_id::text, ''), coalesce(c.slug, ''),"
                 " coalesce(s.upstream_space_id::text, ''), ",
                 Rfc3339("s.created_at"), ", ", Rfc3339("s.updated_at"),
                 ", s.version, s.validating_invocations,"
                 " coalesce(s.release_target_id::text, ''),"
                 " coalesce(rts.slug || '/' || rt.slug, '')"
                 " FROM spaces s LEFT JOIN components c ON c.id = s.component_id"
                 " LEFT JOIN targets rt ON rt.id = s.release_target_id"
                 " LEFT JOIN spaces rts ON rts.id = rt.space_id WHERE TRUE");

v1::Space ReadSpace(const pqxx::row& r) {
  v1::Space s;
  s.set_space_id(r[0].as<std::string>());
  s.set_slug(r[1].as<std::string>());
  s.set_display_name(r[2].as<std::string>());
  FillMap(ReadMap(r[3]), s.mutable_labels());
  FillMap(ReadMap(r[4]), s.mutable_annotations());
  s.set_component_id(r[5].as<std::string>());
  s.set_component_slug(r[6].as<std::string>());
  s.set_upstream_space_id(r[7].as<std::string>());
  s.set_created_at(r[8].as<std::string>());
  s.set_updated_at(r[9].as<std::string>());
  s.set_version(r[10].as<int64_t>());
  for (auto& v : ReadTextArray(r[11])) s.add_validating_invocations(v);
  s.set_release_target_id(r[12].as<std::string>());
  s.set_release_target(r[13].as<std::string>());
  return s;
}

}  // namespace

absl::StatusOr<v1::Space> InsertSpace(Tx& tx, const NewSpace& ns) {
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO spaces (slug, display_name, labels, annotations, component_id,"
      " upstream_space_id) VALUES ($1, $2, $3::jsonb, $4::jsonb, NULLIF($5, '')::uuid,"
      " NULLIF($6, '')::uuid) RETURNING id",
      ns.slug, ns.display_name, JsonText(ns.labels), JsonText(ns.annotations), ns.component_id,
      ns.upstream_space_id);
  auto s = FindSpace(tx, r[0].as<std::string>());
  if (!s) return absl::InternalError("space vanished after insert");
  return *s;
}

std::optional<v1::Space> FindSpace(Tx& tx, const std::string& ref) {
  Query q(kSpaceSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND (s.slug = ", p, " OR s.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadSpace(r[0]);
}

absl::StatusOr<std::vector<v1::Space>> ListSpaces(Tx& tx, const Caller& caller,
                                                  std::string_view where,
                                                  std::string_view filter_where) {
  Query q(kSpaceSelect);
  AndVisible(q, caller, "s.id");
  CUB_RETURN_IF_ERROR(q.AndWhere(where, SpaceSchema()));
  CUB_RETURN_IF_ERROR(q.AndWhere(filter_where, SpaceSchema()));
  q.Append(" ORDER BY s.slug");
  std::vector<v1::Space> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadSpace(row));
  return out;
}

absl::StatusOr<std::vector<v1::Space>> SpacesAmong(Tx& tx, const std::vector<std::string>& ids,
                                                   std::string_view where) {
  Query q(kSpaceSelect);
  q.Append(absl::StrCat(" AND s.id = ANY(", q.Param(TextArrayLiteral(ids)), "::uuid[])"));
  CUB_RETURN_IF_ERROR(q.AndWhere(where, SpaceSchema()));
  q.Append(" ORDER BY s.slug");
  std::vector<v1::Space> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadSpace(row));
  return out;
}

absl::StatusOr<v1::Space> UpdateSpace(Tx& tx, const std::string& space_id, const SpaceChanges& c) {
  Query q("UPDATE spaces SET updated_at = now(), version = version + 1");
  if (c.display_name) q.Append(absl::StrCat(", display_name = ", q.Param(*c.display_name)));
  if (!c.labels.empty()) {
    q.Append(absl::StrCat(", labels = ", MergeMapExpr(q, "labels", c.labels)));
  }
  if (!c.annotations.empty()) {
    q.Append(absl::StrCat(", annotations = ", MergeMapExpr(q, "annotations", c.annotations)));
  }
  if (c.component_id) {
    q.Append(absl::StrCat(", component_id = NULLIF(", q.Param(*c.component_id), ", '')::uuid"));
  }
  if (!c.add_validators.empty() || !c.remove_validators.empty()) {
    q.Append(absl::StrCat(
        ", validating_invocations = ARRAY(SELECT DISTINCT v FROM unnest(validating_invocations || ",
        q.Param(TextArrayLiteral(c.add_validators)), "::text[]) v WHERE v <> ALL(",
        q.Param(TextArrayLiteral(c.remove_validators)), "::text[]) ORDER BY v)"));
  }
  if (c.release_target_id) {
    q.Append(absl::StrCat(", release_target_id = NULLIF(", q.Param(*c.release_target_id),
                          ", '')::uuid"));
  }
  q.Append(absl::StrCat(" WHERE id = ", q.Param(space_id), "::uuid"));
  if (c.expected_version != 0) {
    q.Append(
        absl::StrCat(" AND version = ", q.Param(std::to_string(c.expected_version)), "::bigint"));
  }
  q.Append(" RETURNING id");
  if (q.Exec(tx).empty()) {
    return absl::AbortedError(absl::StrCat("space was changed by someone else (expected version ",
                                           c.expected_version, ")"));
  }
  auto s = FindSpace(tx, space_id);
  if (!s) return absl::NotFoundError("space vanished during update");
  return *s;
}

absl::Status DeleteSpace(Tx& tx, const v1::Space& space) {
  pqxx::result deps = Pq(tx).exec_params(
      "SELECT DISTINCT ds.slug FROM spaces ds WHERE ds.upstream_space_id = $1::uuid "
      "UNION SELECT DISTINCT ls.slug FROM links l JOIN units tu ON tu.id = l.to_unit_id"
      " JOIN spaces ls ON ls.id = l.space_id"
      " WHERE tu.space_id = $1::uuid AND l.space_id <> $1::uuid ORDER BY 1",
      space.space_id());
  if (!deps.empty()) {
    std::vector<std::string> names;
    for (const auto& r : deps) names.push_back(r[0].as<std::string>());
    return absl::FailedPreconditionError(
        absl::StrCat("space '", space.slug(), "' has variants or links depending on it: ",
                     absl::StrJoin(names, ", "), "; delete those first"));
  }
  Pq(tx).exec_params("DELETE FROM spaces WHERE id = $1::uuid", space.space_id());
  return absl::OkStatus();
}

std::string EnsureComponent(Tx& tx, const std::string& slug) {
  pqxx::row r = Pq(tx).exec_params1(
      "WITH ins AS (INSERT INTO components (slug) VALUES ($1) ON CONFLICT (slug) DO NOTHING"
      " RETURNING id) SELECT id FROM ins UNION ALL SELECT id FROM components WHERE slug = $1"
      " LIMIT 1",
      slug);
  return r[0].as<std::string>();
}

std::vector<std::string> RolesOn(Tx& tx, const std::string& space_id, const Caller& caller) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT DISTINCT role FROM space_permissions WHERE space_id = $1::uuid"
      " AND (user_id = $2::uuid OR group_name = ANY($3::text[]))",
      space_id, caller.user_id, TextArrayLiteral(caller.groups));
  std::vector<std::string> out;
  for (const auto& row : r) out.push_back(row[0].as<std::string>());
  return out;
}

absl::Status GrantRole(Tx& tx, const std::string& space_id, const std::string& role,
                       const std::string& user_id, const std::string& group) {
  Pq(tx).exec_params(
      "INSERT INTO space_permissions (space_id, role, user_id, group_name)"
      " VALUES ($1::uuid, $2, NULLIF($3, '')::uuid, NULLIF($4, '')) ON CONFLICT DO NOTHING",
      space_id, role, user_id, group);
  return absl::OkStatus();
}

absl::Status RevokeRole(Tx& tx, const std::string& space_id, const std::string& role,
                        const std::string& user_id, const std::string& group) {
  pqxx::result r = Pq(tx).exec_params(
      "DELETE FROM space_permissions WHERE space_id = $1::uuid AND role = $2"
      " AND user_id IS NOT DISTINCT FROM NULLIF($3, '')::uuid"
      " AND group_name IS NOT DISTINCT FROM NULLIF($4, '') RETURNING role",
      space_id, role, user_id, group);
  if (r.empty()) return absl::NotFoundError(absl::StrCat("no ", role, " grant to remove"));
  return absl::OkStatus();
}

std::vector<v1::Permission> ListPermissions(Tx& tx, const std::string& space_id) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT p.role, coalesce(u.username, ''), coalesce(p.group_name, '')"
      " FROM space_permissions p LEFT JOIN users u ON u.id = p.user_id"
      " WHERE p.space_id = $1::uuid ORDER BY 2, 3, 1",
      space_id);
  std::vector<v1::Permission> out;
  for (const auto& row : r) {
    v1::Permission p;
    p.set_space_id(space_id);
    p.set_role(row[0].as<std::string>());
    p.set_username(row[1].as<std::string>());
    p.set_group(row[2].as<std::string>());
    out.push_back(p);
  }
  return out;
}

}  // namespace cub::store
