#include "lib/store/spaces.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/where/sql.h"

namespace cub::store {
namespace {

// A Space with its component's and release target's names; callers append " AND ..." to it.
const std::string kSpaceSelect = absl::StrCat(
    "SELECT s.id AS space_id, s.slug AS slug, s.display_name AS display_name, ",
    MapAsArray("s.labels"), " AS labels, ", MapAsArray("s.annotations"),
    " AS annotations, coalesce(s.component_id::text, '') AS component_id,"
    " coalesce(c.slug, '') AS component_slug,"
    " coalesce(s.upstream_space_id::text, '') AS upstream_space_id, ",
    Rfc3339("s.created_at"), " AS created_at, ", Rfc3339("s.updated_at"),
    " AS updated_at, s.version AS version, s.validating_invocations AS validating_invocations,"
    " coalesce(s.release_target_id::text, '') AS release_target_id,"
    " coalesce(rts.slug || '/' || rt.slug, '') AS release_target"
    " FROM spaces s LEFT JOIN components c ON c.id = s.component_id"
    " LEFT JOIN targets rt ON rt.id = s.release_target_id"
    " LEFT JOIN spaces rts ON rts.id = rt.space_id WHERE TRUE");

// A row of kSpaceSelect.
v1::Space SpaceFromRow(const pqxx::row& row) {
  v1::Space s;
  s.set_space_id(row["space_id"].as<std::string>());
  s.set_slug(row["slug"].as<std::string>());
  s.set_display_name(row["display_name"].as<std::string>());
  FillMap(ReadMap(row["labels"]), s.mutable_labels());
  FillMap(ReadMap(row["annotations"]), s.mutable_annotations());
  s.set_component_id(row["component_id"].as<std::string>());
  s.set_component_slug(row["component_slug"].as<std::string>());
  s.set_upstream_space_id(row["upstream_space_id"].as<std::string>());
  s.set_created_at(row["created_at"].as<std::string>());
  s.set_updated_at(row["updated_at"].as<std::string>());
  s.set_version(row["version"].as<int64_t>());
  for (auto& v : ReadTextArray(row["validating_invocations"])) s.add_validating_invocations(v);
  s.set_release_target_id(row["release_target_id"].as<std::string>());
  s.set_release_target(row["release_target"].as<std::string>());
  return s;
}

std::vector<v1::Space> SpacesFromResult(const pqxx::result& r) {
  std::vector<v1::Space> out;
  out.reserve(r.size());
  for (const auto& row : r) out.push_back(SpaceFromRow(row));
  return out;
}

}  // namespace

absl::StatusOr<v1::Space> InsertSpace(Tx& tx, const NewSpace& ns) {
  return Guard([&]() -> absl::StatusOr<v1::Space> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO spaces (slug, display_name, labels, annotations, component_id,"
        " upstream_space_id) VALUES ($1, $2, $3::jsonb, $4::jsonb, NULLIF($5, '')::uuid,"
        " NULLIF($6, '')::uuid) RETURNING id",
        ns.slug, ns.display_name, JsonText(ns.labels), JsonText(ns.annotations), ns.component_id,
        ns.upstream_space_id);
    CUB_ASSIGN_OR_RETURN(auto s, FindSpace(tx, r["id"].as<std::string>()));
    if (!s) return absl::InternalError("space vanished after insert");
    return *s;
  });
}

absl::StatusOr<std::optional<v1::Space>> FindSpace(Tx& tx, const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Space>> {
    Query q(kSpaceSelect);
    q.Append(absl::StrCat(" AND ", SlugOrId(q, "s.slug", "s.id", ref))).Prepared();
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return SpaceFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Space>> ListSpaces(Tx& tx, const Caller& caller,
                                                  std::string_view where,
                                                  std::string_view filter_where,
                                                  const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Space>> {
    Query q(kSpaceSelect);
    AndVisible(q, caller, "s.id");
    CUB_RETURN_IF_ERROR(q.AndWhere(where, SpaceSchema()));
    CUB_RETURN_IF_ERROR(q.AndWhere(filter_where, SpaceSchema()));
    AndAfterKey(q, page, "s.slug", {"text"});
    OrderAndLimit(q, page, "s.slug");
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return SpacesFromResult(r);
  });
}

absl::StatusOr<std::vector<v1::Space>> SpacesAmong(Tx& tx, const std::vector<std::string>& ids,
                                                   std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Space>> {
    Query q(kSpaceSelect);
    q.Append(absl::StrCat(" AND s.id = ANY(", q.Param(TextArrayLiteral(ids)), "::uuid[])"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, SpaceSchema()));
    q.Append(" ORDER BY s.slug COLLATE \"C\"");
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return SpacesFromResult(r);
  });
}

namespace {

// One boolean column per where, "(...) IS TRUE AS m0, ...", joined by ", ", each where's
// parameters added to `q` from $next_param on. `(x) IS TRUE` counts NULL as no match, as a
// WHERE clause does. A where that does not compile is refused with the compiler's words, its
// index stored in `*bad_where` (when given).
absl::StatusOr<std::string> MatchColumns(Query& q, int next_param,
                                         const std::vector<std::string>& wheres,
                                         size_t* bad_where) {
  std::string matches;
  for (size_t i = 0; i < wheres.size(); ++i) {
    auto sql = where::CompileToSql(wheres[i], SpaceSchema(), next_param);
    if (!sql.ok()) {
      if (bad_where != nullptr) *bad_where = i;
      return sql.status();
    }
    next_param += static_cast<int>(sql->params.size());
    for (auto& param : sql->params) q.Param(std::move(param));
    absl::StrAppend(&matches, i == 0 ? "" : ", ", "(", sql->text, ") IS TRUE AS m", i);
  }
  return matches;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<v1::Space>>> SpacesAmongEach(
    Tx& tx, const std::vector<std::string>& space_ids, const std::vector<std::string>& wheres,
    size_t* bad_where) {
  using Out = std::vector<std::vector<v1::Space>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    // A Space is read once however many of the wheres select it.
    Query q;
    const std::string ids = q.Param(TextArrayLiteral(space_ids));
    CUB_ASSIGN_OR_RETURN(std::string matches, MatchColumns(q, 2, wheres, bad_where));
    q.Append(absl::StrCat("SELECT ", matches, matches.empty() ? "" : ", ",
                          kSpaceSelect.substr(std::string_view("SELECT ").size()),
                          " AND s.id = ANY(", ids, "::uuid[]) ORDER BY s.slug COLLATE \"C\""));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    Out out(wheres.size());
    for (const auto& row : r) {
      std::optional<v1::Space> space;
      for (size_t i = 0; i < wheres.size(); ++i) {
        if (!row[absl::StrCat("m", i)].as<bool>()) continue;
        if (!space) space = SpaceFromRow(row);
        out[i].push_back(*space);
      }
    }
    return out;
  });
}

namespace {

// The Spaces of `from` (SQL after SELECT ... FROM, in which `s` is the Space and `c` its
// component, as SpaceSchema's columns name them; parameters $1..$N already in `q`), with one
// boolean column per where (MatchColumns): the names each where selects, by slug compared
// bytewise. They are sorted here rather than by ORDER BY, which compares under the database's
// collation: 3 to 5 ms of the statement at 10,000 Spaces, against 1 ms here. A row whose
// space_id is NULL (an outer join's empty side) is skipped, but counted in `*rows` (when given)
// with the others.
absl::StatusOr<std::vector<std::vector<SpaceName>>> NamesEach(
    Tx& tx, Query& q, int next_param, const std::string& from,
    const std::vector<std::string>& wheres, size_t* bad_where, size_t* rows = nullptr) {
  CUB_ASSIGN_OR_RETURN(std::string matches, MatchColumns(q, next_param, wheres, bad_where));
  q.Append(absl::StrCat("SELECT s.id::text AS space_id, s.slug", matches.empty() ? "" : ", ",
                        matches, " FROM ", from));
  CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
  if (rows != nullptr) *rows = r.size();
  std::vector<std::vector<SpaceName>> out(wheres.size());
  for (auto& names : out) names.reserve(r.size());
  for (const auto& row : r) {
    if (row[0].is_null()) continue;
    for (size_t i = 0; i < wheres.size(); ++i) {
      if (row[static_cast<int>(i) + 2].c_str()[0] != 't') continue;  // a boolean prints t or f
      out[i].push_back(SpaceName{row[0].c_str(), row[1].c_str()});
    }
  }
  for (auto& names : out) {
    std::sort(names.begin(), names.end(),
              [](const SpaceName& a, const SpaceName& b) { return a.slug < b.slug; });
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<SpaceName>>> SpaceNamesAmongEach(
    Tx& tx, const std::vector<std::string>& space_ids, const std::vector<std::string>& wheres,
    size_t* bad_where) {
  using Out = std::vector<std::vector<SpaceName>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Query q;
    const std::string ids = q.Param(TextArrayLiteral(space_ids));
    // The component's join, as in kSpaceSelect: SpaceSchema's Component.Slug is c.slug.
    return NamesEach(tx, q, 2,
                     absl::StrCat("spaces s LEFT JOIN components c ON c.id = s.component_id"
                                  " WHERE s.id = ANY(",
                                  ids, "::uuid[])"),
                     wheres, bad_where);
  });
}

namespace {

// Scopes smaller than this are always read by probing the primary key.
constexpr size_t kScanScopeMin = 1000;

// Whether a ChangeOrder scope of `scope_size` Spaces is read by scanning every Space and hashing
// the scope rather than by probing `spaces_pkey` once per ID. The planner cannot tell: it
// guesses 10 elements for any array column, so it always probes. A probe and its row cost about
// five rows of a scan (10,000 of each: 8 to 10 ms against 2 ms), so the scan wins once the
// scope is a fifth of the Spaces, as pg_class estimates them (-1 before the first ANALYZE:
// then a scope this large is scanned). Runs inside a Guard: a database error throws.
bool ScanForScope(Tx& tx, size_t scope_size) {
  if (scope_size < kScanScopeMin) return false;
  pqxx::result r =
      Pq(tx).exec("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'spaces'::regclass");
  const double spaces = r.empty() ? -1 : r[0][0].as<double>();
  return spaces < 0 || static_cast<double>(scope_size) * 5 >= spaces;
}

}  // namespace

absl::StatusOr<std::optional<std::vector<std::vector<SpaceName>>>> SpaceNamesInScopeEach(
    Tx& tx, const std::string& change_order_id, int64_t version, size_t scope_size,
    const std::vector<std::string>& wheres, size_t* bad_where) {
  using Out = std::optional<std::vector<std::vector<SpaceName>>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Query q;
    const std::string id = q.Param(change_order_id);
    const std::string v = q.Param(std::to_string(version));
    const std::string this_version =
        absl::StrCat("co.id = ", id, "::uuid AND co.version = ", v, "::bigint");
    std::string from;
    if (ScanForScope(tx, scope_size)) {
      // Every Space, kept when its ID is in the scope (a hashed semi-join, so an ID listed twice
      // still gives one row). COALESCE hides `s.id` from the primary key, which the planner
      // would otherwise probe per ID. The row of NULLs the UNION adds when the ChangeOrder is
      // still at that version tells an empty scope from a changed one, as the outer join of
      // the other form does.
      std::string nulls;
      for (size_t i = 0; i < wheres.size(); ++i) absl::StrAppend(&nulls, ", NULL::boolean");
      from = absl::StrCat(
          "spaces s LEFT JOIN components c ON c.id = s.component_id"
          " WHERE COALESCE(s.id, s.id) IN (SELECT unnest(co.in_scope_space_ids)"
          " FROM change_orders co WHERE ",
          this_version, ") UNION ALL SELECT NULL, NULL", nulls, " FROM change_orders co WHERE ",
          this_version);
    } else {
      // The outer join keeps one row (space_id NULL) for a ChangeOrder of that version whose
      // scope holds no Space, so no row at all means it has changed since (or is gone).
      // `s.id = ANY(co.in_scope_space_ids)` probes the primary key once per ID (a bitmap scan).
      from = absl::StrCat(
          "change_orders co LEFT JOIN (spaces s LEFT JOIN components c ON c.id ="
          " s.component_id) ON s.id = ANY(co.in_scope_space_ids) WHERE ",
          this_version);
    }
    size_t rows = 0;
    auto names = NamesEach(tx, q, 3, from, wheres, bad_where, &rows);
    if (!names.ok()) return names.status();
    if (rows == 0) return Out();
    return Out(*std::move(names));
  });
}

absl::StatusOr<std::optional<std::vector<SpaceName>>> SpaceNamesInScope(
    Tx& tx, const std::string& change_order_id, int64_t version) {
  using Out = std::optional<std::vector<SpaceName>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    // As SpaceNamesInScopeEach: one row with a NULL ID for an empty scope, none once changed.
    pqxx::result r = Pq(tx).exec_params(
        "SELECT s.id::text AS space_id, s.slug FROM change_orders co"
        " LEFT JOIN spaces s ON s.id = ANY(co.in_scope_space_ids)"
        " WHERE co.id = $1::uuid AND co.version = $2::bigint ORDER BY s.slug COLLATE \"C\"",
        change_order_id, version);
    if (r.empty()) return Out();
    std::vector<SpaceName> names;
    names.reserve(r.size());
    for (const auto& row : r) {
      if (!row[0].is_null()) names.push_back({row[0].as<std::string>(), row[1].as<std::string>()});
    }
    return Out(std::move(names));
  });
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SpaceSlugsAmong(
    Tx& tx, const std::vector<std::string>& space_ids) {
  using Out = std::vector<std::pair<std::string, std::string>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    for (const auto& row :
         Pq(tx).exec_params("SELECT s.id::text AS space_id, s.slug FROM spaces s"
                            " WHERE s.id = ANY($1::uuid[]) ORDER BY s.slug COLLATE \"C\"",
                            TextArrayLiteral(space_ids))) {
      out.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
    }
    return out;
  });
}

absl::StatusOr<v1::Space> UpdateSpace(Tx& tx, const std::string& space_id, const SpaceChanges& c) {
  return Guard([&]() -> absl::StatusOr<v1::Space> {
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
      q.Append(
          absl::StrCat(", validating_invocations = ARRAY(SELECT DISTINCT v FROM"
                       " unnest(validating_invocations || ",
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
    CUB_ASSIGN_OR_RETURN(pqxx::result updated, q.Run(tx));
    if (updated.empty()) {
      return absl::AbortedError(absl::StrCat("space was changed by someone else (expected version ",
                                             c.expected_version, ")"));
    }
    CUB_ASSIGN_OR_RETURN(auto s, FindSpace(tx, space_id));
    if (!s) return absl::NotFoundError("space vanished during update");
    return *s;
  });
}

absl::Status DeleteSpace(Tx& tx, const v1::Space& space) {
  return Guard([&]() -> absl::Status {
    pqxx::result deps = Pq(tx).exec_params(
        "SELECT DISTINCT ds.slug AS slug FROM spaces ds WHERE ds.upstream_space_id = $1::uuid "
        "UNION SELECT DISTINCT ls.slug AS slug FROM links l JOIN units tu ON tu.id = l.to_unit_id"
        " JOIN spaces ls ON ls.id = l.space_id"
        " WHERE tu.space_id = $1::uuid AND l.space_id <> $1::uuid ORDER BY 1",
        space.space_id());
    if (!deps.empty()) {
      std::vector<std::string> names;
      for (const auto& row : deps) names.push_back(row["slug"].as<std::string>());
      return absl::FailedPreconditionError(
          absl::StrCat("space '", space.slug(), "' has variants or links depending on it: ",
                       absl::StrJoin(names, ", "), "; delete those first"));
    }
    Pq(tx).exec_params("DELETE FROM spaces WHERE id = $1::uuid", space.space_id());
    return absl::OkStatus();
  });
}

absl::StatusOr<std::string> EnsureComponent(Tx& tx, const std::string& slug) {
  return Guard([&]() -> absl::StatusOr<std::string> {
    pqxx::row r = Pq(tx).exec_params1(
        "WITH ins AS (INSERT INTO components (slug) VALUES ($1) ON CONFLICT (slug) DO NOTHING"
        " RETURNING id) SELECT id FROM ins UNION ALL SELECT id FROM components WHERE slug = $1"
        " LIMIT 1",
        slug);
    return r["id"].as<std::string>();
  });
}

absl::StatusOr<std::vector<std::string>> RolesOn(Tx& tx, const std::string& space_id,
                                                 const Caller& caller) {
  CUB_ASSIGN_OR_RETURN(auto each, RolesOnEach(tx, {space_id}, caller));
  auto it = each.find(space_id);
  return it == each.end() ? std::vector<std::string>() : std::move(it->second);
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>> RolesOnEach(
    Tx& tx, const std::vector<std::string>& space_ids, const Caller& caller) {
  using Out = std::map<std::string, std::vector<std::string>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    if (space_ids.empty()) return out;
    pqxx::result r = Pq(tx).exec_params(
        "SELECT DISTINCT space_id::text AS space_id, role FROM space_permissions"
        " WHERE space_id = ANY($1::uuid[]) AND (user_id = $2::uuid OR group_name = "
        "ANY($3::text[]))",
        TextArrayLiteral(space_ids), caller.user_id, TextArrayLiteral(caller.groups));
    for (const auto& row : r) {
      out[row["space_id"].as<std::string>()].push_back(row["role"].as<std::string>());
    }
    return out;
  });
}

absl::Status GrantRole(Tx& tx, const std::string& space_id, const std::string& role,
                       const std::string& user_id, const std::string& group) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "INSERT INTO space_permissions (space_id, role, user_id, group_name)"
        " VALUES ($1::uuid, $2, NULLIF($3, '')::uuid, NULLIF($4, '')) ON CONFLICT DO NOTHING",
        space_id, role, user_id, group);
    return absl::OkStatus();
  });
}

absl::Status RevokeRole(Tx& tx, const std::string& space_id, const std::string& role,
                        const std::string& user_id, const std::string& group) {
  return Guard([&]() -> absl::Status {
    pqxx::result r = Pq(tx).exec_params(
        "DELETE FROM space_permissions WHERE space_id = $1::uuid AND role = $2"
        " AND user_id IS NOT DISTINCT FROM NULLIF($3, '')::uuid"
        " AND group_name IS NOT DISTINCT FROM NULLIF($4, '') RETURNING role",
        space_id, role, user_id, group);
    if (r.empty()) return absl::NotFoundError(absl::StrCat("no ", role, " grant to remove"));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::Permission>> ListPermissions(Tx& tx, const std::string& space_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Permission>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT p.role AS role, coalesce(u.username, '') AS username,"
        " coalesce(p.group_name, '') AS group_name"
        " FROM space_permissions p LEFT JOIN users u ON u.id = p.user_id"
        " WHERE p.space_id = $1::uuid ORDER BY 2, 3, 1",
        space_id);
    std::vector<v1::Permission> out;
    for (const auto& row : r) {
      v1::Permission p;
      p.set_space_id(space_id);
      p.set_role(row["role"].as<std::string>());
      p.set_username(row["username"].as<std::string>());
      p.set_group(row["group_name"].as<std::string>());
      out.push_back(p);
    }
    return out;
  });
}

}  // namespace cub::store
