#include "lib/store/change_sets.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// Units a ChangeSet is open on, or that its end Tag marks once closed.
const std::string kChangeSetSelect = absl::StrCat(
    "SELECT cs.id, cs.space_id, cs.slug, cs.description,"
    " CASE WHEN cs.closed_at IS NULL THEN 'Open' ELSE 'Closed' END AS state,"
    " cs.start_tag_id, st.slug AS start_tag_slug, cs.end_tag_id, et.slug AS end_tag_slug,"
    " ARRAY(SELECT u.slug FROM units u WHERE u.change_set_id = cs.id OR u.id IN"
    " (SELECT m.unit_id FROM tag_marks m WHERE m.tag_id = cs.end_tag_id) ORDER BY u.slug)"
    " AS unit_slugs, coalesce(cu.username, '') AS created_by, ",
    Rfc3339("cs.created_at"), " AS created_at, coalesce(xu.username, '') AS closed_by, coalesce(",
    Rfc3339("cs.closed_at"),
    ", '') AS closed_at FROM change_sets cs JOIN tags st ON st.id = cs.start_tag_id"
    " JOIN tags et ON et.id = cs.end_tag_id LEFT JOIN users cu ON cu.id = cs.created_by"
    " LEFT JOIN users xu ON xu.id = cs.closed_by WHERE TRUE");

v1::ChangeSet ChangeSetFromRow(const pqxx::row& r) {
  v1::ChangeSet c;
  c.set_change_set_id(r["id"].as<std::string>());
  c.set_space_id(r["space_id"].as<std::string>());
  c.set_slug(r["slug"].as<std::string>());
  c.set_description(r["description"].as<std::string>());
  c.set_state(r["state"].as<std::string>());
  c.set_start_tag_id(r["start_tag_id"].as<std::string>());
  c.set_start_tag_slug(r["start_tag_slug"].as<std::string>());
  c.set_end_tag_id(r["end_tag_id"].as<std::string>());
  c.set_end_tag_slug(r["end_tag_slug"].as<std::string>());
  for (auto& s : ReadTextArray(r["unit_slugs"])) c.add_unit_slugs(s);
  c.set_created_by(r["created_by"].as<std::string>());
  c.set_created_at(r["created_at"].as<std::string>());
  c.set_closed_by(r["closed_by"].as<std::string>());
  c.set_closed_at(r["closed_at"].as<std::string>());
  return c;
}

// The one ChangeSet `q` selects, if any. Runs inside a Guard.
std::optional<v1::ChangeSet> FirstChangeSet(Tx& tx, const Query& q) {
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ChangeSetFromRow(r[0]);
}

}  // namespace

absl::StatusOr<v1::ChangeSet> InsertChangeSet(Tx& tx, const NewChangeSet& n) {
  return Guard([&]() -> absl::StatusOr<v1::ChangeSet> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO change_sets (space_id, slug, description, start_tag_id, end_tag_id,"
        " created_by) VALUES ($1::uuid, $2, $3, $4::uuid, $5::uuid, NULLIF($6, '')::uuid)"
        " RETURNING id",
        n.space_id, n.slug, n.description, n.start_tag_id, n.end_tag_id, n.created_by);
    CUB_ASSIGN_OR_RETURN(auto c, FindChangeSetByID(tx, r["id"].as<std::string>()));
    if (!c) return absl::InternalError("changeset vanished after insert");
    return *std::move(c);
  });
}

absl::StatusOr<std::optional<v1::ChangeSet>> FindChangeSet(Tx& tx, const std::string& space_id,
                                                           const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::ChangeSet>> {
    Query q(kChangeSetSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND cs.space_id = ", q.Param(space_id), "::uuid AND (cs.slug = ", p,
                          " OR cs.id::text = ", p, ")"));
    return FirstChangeSet(tx, q);
  });
}

absl::StatusOr<std::optional<v1::ChangeSet>> FindChangeSetByID(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::ChangeSet>> {
    Query q(kChangeSetSelect);
    q.Append(absl::StrCat(" AND cs.id::text = ", q.Param(id)));
    return FirstChangeSet(tx, q);
  });
}

absl::StatusOr<std::vector<v1::ChangeSet>> ListChangeSets(Tx& tx, const std::string& space_id,
                                                          std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::ChangeSet>> {
    Query q(kChangeSetSelect);
    q.Append(absl::StrCat(" AND cs.space_id = ", q.Param(space_id), "::uuid"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, ChangeSetSchema()));
    q.Append(" ORDER BY cs.slug");
    std::vector<v1::ChangeSet> out;
    for (const auto& row : q.Exec(tx)) out.push_back(ChangeSetFromRow(row));
    return out;
  });
}

absl::Status SetUnitChangeSet(Tx& tx, const std::string& unit_id,
                              const std::string& change_set_id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE units SET change_set_id = NULLIF($2, '')::uuid, updated_at = now(),"
        " version = version + 1 WHERE id = $1::uuid",
        unit_id, change_set_id);
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> CloseChangeSet(Tx& tx, const v1::ChangeSet& c,
                                       const std::string& closed_by) {
  return Guard([&]() -> absl::StatusOr<int64_t> {
    pqxx::result marked = Pq(tx).exec_params(
        "INSERT INTO tag_marks (tag_id, unit_id, revision_num)"
        " SELECT $2::uuid, u.id, u.head_revision_num FROM units u"
        " WHERE u.change_set_id = $1::uuid"
        " ON CONFLICT (tag_id, unit_id) DO UPDATE SET revision_num = EXCLUDED.revision_num,"
        " created_at = now() RETURNING unit_id",
        c.change_set_id(), c.end_tag_id());
    Pq(tx).exec_params(
        "UPDATE units SET change_set_id = NULL, updated_at = now(), version = version + 1"
        " WHERE change_set_id = $1::uuid",
        c.change_set_id());
    Pq(tx).exec_params(
        "UPDATE change_sets SET closed_at = now(), closed_by = NULLIF($2, '')::uuid"
        " WHERE id = $1::uuid",
        c.change_set_id(), closed_by);
    return static_cast<int64_t>(marked.size());
  });
}

}  // namespace cub::store
