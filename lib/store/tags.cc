#include "lib/store/tags.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// A Tag with the number of revisions it marks; callers append " AND ..." to it.
const std::string kTagSelect = absl::StrCat(
    "SELECT t.id AS tag_id, t.space_id AS space_id, t.slug AS slug,"
    " t.description AS description, ",
    MapAsArray("t.labels"),
    " AS labels, (SELECT count(*) FROM tag_marks m WHERE m.tag_id = t.id) AS mark_count, ",
    Rfc3339("t.created_at"), " AS created_at FROM tags t WHERE TRUE");

// A row of kTagSelect.
v1::Tag TagFromRow(const pqxx::row& row) {
  v1::Tag t;
  t.set_tag_id(row["tag_id"].as<std::string>());
  t.set_space_id(row["space_id"].as<std::string>());
  t.set_slug(row["slug"].as<std::string>());
  t.set_description(row["description"].as<std::string>());
  FillMap(ReadMap(row["labels"]), t.mutable_labels());
  t.set_mark_count(row["mark_count"].as<int64_t>());
  t.set_created_at(row["created_at"].as<std::string>());
  return t;
}

}  // namespace

absl::StatusOr<v1::Tag> InsertTag(Tx& tx, const NewTag& nt) {
  return Guard([&]() -> absl::StatusOr<v1::Tag> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO tags (space_id, slug, description, labels)"
        " VALUES ($1::uuid, $2, $3, $4::jsonb) RETURNING id",
        nt.space_id, nt.slug, nt.description, JsonText(nt.labels));
    CUB_ASSIGN_OR_RETURN(auto t, FindTag(tx, nt.space_id, r["id"].as<std::string>()));
    if (!t) return absl::InternalError("tag vanished after insert");
    return *t;
  });
}

absl::StatusOr<std::optional<v1::Tag>> FindTag(Tx& tx, const std::string& space_id,
                                               const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Tag>> {
    Query q(kTagSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid AND (t.slug = ", p,
                          " OR t.id::text = ", p, ")"));
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    if (r.empty()) return std::nullopt;
    return TagFromRow(r[0]);
  });
}

absl::StatusOr<std::vector<v1::Tag>> ListTags(Tx& tx, const std::string& space_id,
                                              std::string_view where) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Tag>> {
    Query q(kTagSelect);
    q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, TagSchema()));
    q.Append(" ORDER BY t.slug");
    std::vector<v1::Tag> out;
    CUB_ASSIGN_OR_RETURN(pqxx::result r, q.Run(tx));
    for (const auto& row : r) out.push_back(TagFromRow(row));
    return out;
  });
}

absl::StatusOr<std::vector<v1::TagMark>> ListTagMarks(Tx& tx, const std::string& tag_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::TagMark>> {
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat("SELECT m.tag_id AS tag_id, t.slug AS tag_slug, m.unit_id AS unit_id,"
                     " u.slug AS unit_slug, m.revision_num AS revision_num, ",
                     Rfc3339("m.created_at"),
                     " AS created_at FROM tag_marks m JOIN tags t ON t.id = m.tag_id"
                     " JOIN units u ON u.id = m.unit_id WHERE m.tag_id = $1::uuid"
                     " ORDER BY u.slug"),
        tag_id);
    std::vector<v1::TagMark> out;
    for (const auto& row : r) {
      v1::TagMark m;
      m.set_tag_id(row["tag_id"].as<std::string>());
      m.set_tag_slug(row["tag_slug"].as<std::string>());
      m.set_unit_id(row["unit_id"].as<std::string>());
      m.set_unit_slug(row["unit_slug"].as<std::string>());
      m.set_revision_num(row["revision_num"].as<int64_t>());
      m.set_created_at(row["created_at"].as<std::string>());
      out.push_back(m);
    }
    return out;
  });
}

absl::StatusOr<std::optional<int64_t>> FindMark(Tx& tx, const std::string& tag_id,
                                                const std::string& unit_id) {
  return Guard([&]() -> absl::StatusOr<std::optional<int64_t>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT revision_num FROM tag_marks WHERE tag_id = $1::uuid AND unit_id = $2::uuid", tag_id,
        unit_id);
    if (r.empty()) return std::nullopt;
    return r[0]["revision_num"].as<int64_t>();
  });
}

absl::StatusOr<std::map<std::string, MarkedRevision>> MarkedRevisions(
    Tx& tx, const std::string& tag_id, const std::vector<std::string>& unit_ids) {
  using Out = std::map<std::string, MarkedRevision>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    if (unit_ids.empty()) return out;
    pqxx::result r = Pq(tx).exec_params(
        "SELECT m.unit_id::text AS unit_id, m.revision_num, v.data_hash FROM tag_marks m"
        " JOIN revisions v ON v.unit_id = m.unit_id AND v.revision_num = m.revision_num"
        " WHERE m.tag_id = $1::uuid AND m.unit_id = ANY($2::uuid[])",
        tag_id, TextArrayLiteral(unit_ids));
    for (const auto& row : r) {
      out[row["unit_id"].as<std::string>()] =
          MarkedRevision{row["revision_num"].as<int64_t>(), row["data_hash"].as<std::string>()};
    }
    return out;
  });
}

absl::StatusOr<v1::TagMark> MarkRevision(Tx& tx, const v1::Tag& tag, const v1::Unit& unit,
                                         int64_t revision_num, bool move) {
  return Guard([&]() -> absl::StatusOr<v1::TagMark> {
    // Insert, or (with move) repoint; the returned row tells which revision the mark is on.
    pqxx::row r = Pq(tx).exec_params1(
        absl::StrCat("INSERT INTO tag_marks (tag_id, unit_id, revision_num)"
                     " VALUES ($1::uuid, $2::uuid, $3) ON CONFLICT (tag_id, unit_id) DO UPDATE"
                     " SET revision_num = CASE WHEN $4 THEN EXCLUDED.revision_num"
                     " ELSE tag_marks.revision_num END,"
                     " created_at = CASE WHEN $4 THEN now() ELSE tag_marks.created_at END"
                     " RETURNING revision_num, ",
                     Rfc3339("created_at"), " AS created_at"),
        tag.tag_id(), unit.unit_id(), revision_num, move);
    int64_t marked = r["revision_num"].as<int64_t>();
    if (marked != revision_num) {
      return absl::FailedPreconditionError(
          absl::StrCat("tag '", tag.slug(), "' already marks revision ", marked, " of unit '",
                       unit.slug(), "'; pass Move to move it"));
    }
    v1::TagMark m;
    m.set_tag_id(tag.tag_id());
    m.set_tag_slug(tag.slug());
    m.set_unit_id(unit.unit_id());
    m.set_unit_slug(unit.slug());
    m.set_revision_num(marked);
    m.set_created_at(r["created_at"].as<std::string>());
    return m;
  });
}

}  // namespace cub::store
