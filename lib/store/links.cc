#include "lib/store/links.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// A Link with the slugs of the Units it joins; callers append " AND ..." to it.
const std::string kLinkSelect = absl::StrCat(
    "SELECT l.id AS link_id, l.space_id AS space_id, l.slug AS slug,"
    " l.from_unit_id AS from_unit_id, fu.slug AS from_unit_slug, l.to_unit_id AS to_unit_id,"
    " tu.slug AS to_unit_slug, tu.space_id AS to_space_id, ts.slug AS to_space_slug,"
    " l.update_type AS update_type, l.auto_update AS auto_update, l.protect AS protect,"
    " l.upstream_revision_num AS upstream_revision_num, ",
    Rfc3339("l.created_at"), " AS created_at, l.definition::text AS definition",
    " FROM links l JOIN units fu ON fu.id = l.from_unit_id JOIN units tu ON tu.id = l.to_unit_id"
    " JOIN spaces ts ON ts.id = tu.space_id WHERE TRUE");

// The definition column holds a Link's JSON with only UpstreamPaths and DownstreamSetters.
std::string DefinitionJson(const v1::Link& def) {
  v1::Link only;
  *only.mutable_upstream_paths() = def.upstream_paths();
  *only.mutable_downstream_setters() = def.downstream_setters();
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(only, &json).ok()) return "{}";
  return json;
}

void ReadDefinition(const std::string& json, v1::Link* l) {
  v1::Link def;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // written by a newer cubd: keep what this one knows
  if (!google::protobuf::util::JsonStringToMessage(json, &def, options).ok()) return;
  *l->mutable_upstream_paths() = std::move(*def.mutable_upstream_paths());
  *l->mutable_downstream_setters() = std::move(*def.mutable_downstream_setters());
}

// A row of kLinkSelect.
v1::Link LinkFromRow(const pqxx::row& row) {
  v1::Link l;
  l.set_link_id(row["link_id"].as<std::string>());
  l.set_space_id(row["space_id"].as<std::string>());
  l.set_slug(row["slug"].as<std::string>());
  l.set_from_unit_id(row["from_unit_id"].as<std::string>());
  l.set_from_unit_slug(row["from_unit_slug"].as<std::string>());
  l.set_to_unit_id(row["to_unit_id"].as<std::string>());
  l.set_to_unit_slug(row["to_unit_slug"].as<std::string>());
  l.set_to_space_id(row["to_space_id"].as<std::string>());
  l.set_to_space_slug(row["to_space_slug"].as<std::string>());
  l.set_update_type(row["update_type"].as<std::string>());
  l.set_auto_update(row["auto_update"].as<bool>());
  l.set_protect(row["protect"].as<bool>());
  l.set_upstream_revision_num(row["upstream_revision_num"].as<int64_t>());
  l.set_created_at(row["created_at"].as<std::string>());
  ReadDefinition(row["definition"].as<std::string>(), &l);
  return l;
}

std::vector<v1::Link> LinksFromResult(const pqxx::result& r) {
  std::vector<v1::Link> out;
  out.reserve(r.size());
  for (const auto& row : r) out.push_back(LinkFromRow(row));
  return out;
}

// A Filter; callers append " AND ..." to it.
const std::string kFilterSelect = absl::StrCat(
    "SELECT f.id AS filter_id, f.space_id AS space_id, f.slug AS slug, f.from_entity AS "
    "from_entity,"
    " f.where_field AS where_field, ",
    Rfc3339("f.created_at"), " AS created_at FROM filters f WHERE TRUE");

// A row of kFilterSelect.
v1::Filter FilterFromRow(const pqxx::row& row) {
  v1::Filter f;
  f.set_filter_id(row["filter_id"].as<std::string>());
  f.set_space_id(row["space_id"].as<std::string>());
  f.set_slug(row["slug"].as<std::string>());
  f.set_from(row["from_entity"].as<std::string>());
  f.set_where_field(row["where_field"].as<std::string>());
  f.set_created_at(row["created_at"].as<std::string>());
  return f;
}

}  // namespace

absl::StatusOr<v1::Link> InsertLink(Tx& tx, const NewLink& nl) {
  return Guard([&]() -> absl::StatusOr<v1::Link> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO links (space_id, slug, from_unit_id, to_unit_id, update_type, auto_update,"
        " protect, upstream_revision_num, definition) VALUES ($1::uuid, $2, $3::uuid, $4::uuid,"
        " $5, $6, $7, $8, $9::jsonb) RETURNING id",
        nl.space_id, nl.slug, nl.from_unit_id, nl.to_unit_id, nl.update_type, nl.auto_update,
        nl.protect, nl.upstream_revision_num, DefinitionJson(nl.definition));
    CUB_ASSIGN_OR_RETURN(auto l, FindLink(tx, nl.space_id, r["id"].as<std::string>()));
    if (!l) return absl::InternalError("link vanished after insert");
    return *l;
  });
}

absl::StatusOr<std::optional<v1::Link>> FindLink(Tx& tx, const std::string& space_id,
                                                 const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Link>> {
    Query q(kLinkSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND l.space_id = ", q.Param(space_id), "::uuid AND (l.slug = ", p,
                          " OR l.id::text = ", p, ")"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return LinkFromRow(r[0]);
  });
}

absl::StatusOr<std::optional<v1::Link>> FindLinkBetween(Tx& tx, const std::string& from_unit_id,
                                                        const std::string& to_unit_id,
                                                        const std::string& update_type) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Link>> {
    Query q(kLinkSelect);
    q.Append(absl::StrCat(" AND l.from_unit_id = ", q.Param(from_unit_id),
                          "::uuid AND l.to_unit_id = ", q.Param(to_unit_id),
                          "::uuid AND l.update_type = ", q.Param(update_type)));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return LinkFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Link>> LinksFrom(Tx& tx, const std::string& from_unit_id,
                                                const std::string& update_type) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Link>> {
    Query q(kLinkSelect);
    q.Append(absl::StrCat(" AND l.from_unit_id = ", q.Param(from_unit_id),
                          "::uuid AND l.update_type = ", q.Param(update_type), " ORDER BY l.slug"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return LinksFromResult(r);
  });
}

absl::Status SetLinkCursor(Tx& tx, const std::string& link_id, int64_t upstream_revision_num) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE links SET upstream_revision_num = $2, updated_at = now(), version = version + 1"
        " WHERE id = $1::uuid",
        link_id, upstream_revision_num);
    return absl::OkStatus();
  });
}

absl::Status SetLinkCursors(Tx& tx, const std::vector<std::pair<std::string, int64_t>>& cursors) {
  if (cursors.empty()) return absl::OkStatus();
  return Guard([&]() -> absl::Status {
    std::vector<std::string> ids, nums;
    for (const auto& [id, num] : cursors) {
      ids.push_back(id);
      nums.push_back(std::to_string(num));
    }
    Pq(tx).exec_params(
        "UPDATE links l SET upstream_revision_num = v.num, updated_at = now(),"
        " version = l.version + 1 FROM unnest($1::uuid[], $2::bigint[]) AS v(id, num)"
        " WHERE l.id = v.id",
        TextArrayLiteral(ids), TextArrayLiteral(nums));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::Link>> ResolvedLinksFrom(Tx& tx, const std::string& from_unit_id,
                                                        std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Link>> {
    Query q(kLinkSelect);
    q.Append(absl::StrCat(" AND l.from_unit_id = ", q.Param(from_unit_id),
                          "::uuid AND l.update_type IN ('TransformPaths', 'Insert', 'Upsert')"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, LinkSchema()));
    q.Append(" ORDER BY l.slug");
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return LinksFromResult(r);
  });
}

absl::StatusOr<std::vector<v1::Link>> AutoUpdateLinksTo(
    Tx& tx, const std::vector<std::string>& to_unit_ids) {
  if (to_unit_ids.empty()) return std::vector<v1::Link>();
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Link>> {
    Query q(kLinkSelect);
    q.Append(absl::StrCat(" AND l.auto_update AND l.to_unit_id = ANY(",
                          q.Param(TextArrayLiteral(to_unit_ids)),
                          "::uuid[]) ORDER BY l.from_unit_id, l.slug"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return LinksFromResult(r);
  });
}

absl::StatusOr<std::vector<v1::Link>> ListLinks(Tx& tx, const Caller& caller,
                                                const std::string& space_id,
                                                std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Link>> {
    Query q(kLinkSelect);
    if (!space_id.empty()) {
      q.Append(absl::StrCat(" AND l.space_id = ", q.Param(space_id), "::uuid"));
    }
    AndVisible(q, caller, "l.space_id");
    CUB_RETURN_IF_ERROR(q.AndWhere(where, LinkSchema()));
    q.Append(" ORDER BY l.slug");
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    return LinksFromResult(r);
  });
}

absl::StatusOr<v1::Filter> InsertFilter(Tx& tx, const NewFilter& nf) {
  return Guard([&]() -> absl::StatusOr<v1::Filter> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO filters (space_id, slug, from_entity, where_field)"
        " VALUES ($1::uuid, $2, $3, $4) RETURNING id",
        nf.space_id, nf.slug, nf.from, nf.where_field);
    CUB_ASSIGN_OR_RETURN(auto f, FindFilter(tx, nf.space_id, r["id"].as<std::string>()));
    if (!f) return absl::InternalError("filter vanished after insert");
    return *f;
  });
}

absl::StatusOr<std::optional<v1::Filter>> FindFilter(Tx& tx, const std::string& space_id,
                                                     const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Filter>> {
    Query q(kFilterSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND f.space_id = ", q.Param(space_id), "::uuid AND (f.slug = ", p,
                          " OR f.id::text = ", p, ")"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return FilterFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Filter>> ListFilters(Tx& tx, const std::string& space_id,
                                                    std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Filter>> {
    Query q(kFilterSelect);
    q.Append(absl::StrCat(" AND f.space_id = ", q.Param(space_id), "::uuid"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, FilterSchema()));
    q.Append(" ORDER BY f.slug");
    std::vector<v1::Filter> out;
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    for (const auto& row : r) out.push_back(FilterFromRow(row));
    return out;
  });
}

}  // namespace cub::store
