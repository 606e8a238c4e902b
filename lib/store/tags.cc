#include "lib/store/tags.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

const std::string kTagSelect =
    absl::StrCat("SELECT t.id, t.space_id, t.slug, t.description, ", MapAsArray("t.labels"),
                 ", (SELECT count(*) FROM tag_marks m WHERE m.tag_id = t.id), ",
                 Rfc3339("t.created_at"), " FROM tags t WHERE TRUE");

v1::Tag ReadTag(const pqxx::row& r) {
  v1::Tag t;
  t.set_tag_id(r[0].as<std::string>());
  t.set_space_id(r[1].as<std::string>());
  t.set_slug(r[2].as<std::string>());
  t.set_description(r[3].as<std::string>());
  FillMap(ReadMap(r[4]), t.mutable_labels());
  t.set_mark_count(r[5].as<int64_t>());
  t.set_created_at(r[6].as<std::string>());
  return t;
}

}  // namespace

absl::StatusOr<v1::Tag> InsertTag(Tx& tx, const NewTag& nt) {
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO tags (space_id, slug, description, labels)"
      " VALUES ($1::uuid, $2, $3, $4::jsonb) RETURNING id",
      nt.space_id, nt.slug, nt.description, JsonText(nt.labels));
  auto t = FindTag(tx, nt.space_id, r[0].as<std::string>());
  if (!t) return absl::InternalError("tag vanished after insert");
  return *t;
}

std::optional<v1::Tag> FindTag(Tx& tx, const std::string& space_id, const std::string& ref) {
  Query q(kTagSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid AND (t.slug = ", p,
                        " OR t.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadTag(r[0]);
}

absl::StatusOr<std::vector<v1::Tag>> ListTags(Tx& tx, const std::string& space_id,
                                              std::string_view where) {
  Query q(kTagSelect);
  q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid"));
  CUB_RETURN_IF_ERROR(q.AndWhere(where, TagSchema()));
  q.Append(" ORDER BY t.slug");
  std::vector<v1::Tag> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadTag(row));
  return out;
}

std::vector<v1::TagMark> ListTagMarks(Tx& tx, const std::string& tag_id) {
  pqxx::result r = Pq(tx).exec_params(
      absl::StrCat("SELECT m.tag_id, t.slug, m.unit_id, u.slug, m.revision_num, ",
                   Rfc3339("m.created_at"),
                   " FROM tag_marks m JOIN tags t ON t.id = m.tag_id"
                   " JOIN units u ON u.id = m.unit_id WHERE m.tag_id = $1::uuid ORDER BY u.slug"),
      tag_id);
  std::vector<v1::TagMark> out;
  for (const auto& row : r) {
    v1::TagMark m;
    m.set_tag_id(row[0].as<std::string>());
    m.set_tag_slug(row[1].as<std::string>());
    m.set_unit_id(row[2].as<std::string>());
    m.set_unit_slug(row[3].as<std::string>());
    m.set_revision_num(row[4].as<int64_t>());
    m.set_created_at(row[5].as<std::string>());
    out.push_back(m);
  }
  return out;
}

std::optional<int64_t> FindMark(Tx& tx, const std::string& tag_id, const std::string& unit_id) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT revision_num FROM tag_marks WHERE tag_id = $1::uuid AND unit_id = $2::uuid", tag_id,
      unit_id);
  if (r.empty()) return std::nullopt;
  return r[0][0].as<int64_t>();
}

absl::StatusOr<v1::TagMark> MarkRevision(Tx& tx, const v1::Tag& tag, const v1::Unit& unit,
                                         int64_t revision_num, bool move) {
  // Insert, or (with move) repoint; the returned row tells which revision the mark is on.
  pqxx::row r = Pq(tx).exec_params1(
      absl::StrCat("INSERT INTO tag_marks (tag_id, unit_id, revision_num)"
                   " VALUES ($1::uuid, $2::uuid, $3) ON CONFLICT (tag_id, unit_id) DO UPDATE"
                   " SET revision_num = CASE WHEN $4 THEN EXCLUDED.revision_num"
                   " ELSE tag_marks.revision_num END,"
                   " created_at = CASE WHEN $4 THEN now() ELSE tag_marks.created_at END"
                   " RETURNING revision_num, ",
                   Rfc3339("created_at")),
      tag.tag_id(), unit.unit_id(), revision_num, move);
  int64_t marked = r[0].as<int64_t>();
  if (marked != revision_num) {
    return absl::FailedPreconditionError(
        absl::StrCat("tag '", tag.slug(), "' already marks revision ", marked, " of unit '",
                     unit.slug(), "'; pass --move to move it"));
  }
  v1::TagMark m;
  m.set_tag_id(tag.tag_id());
  m.set_tag_slug(tag.slug());
  m.set_unit_id(unit.unit_id());
  m.set_unit_slug(unit.slug());
  m.set_revision_num(marked);
  m.set_created_at(r[1].as<std::string>());
  return m;
}

}  // namespace cub::store
