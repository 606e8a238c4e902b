#include "lib/store/promotion.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/store/errors.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// Builds one array parameter per column of a batch.
class Columns {
 public:
  std::vector<std::string>& operator[](size_t i) {
    if (cols_.size() <= i) cols_.resize(i + 1);
    return cols_[i];
  }
  std::vector<std::string> Literals() const {
    std::vector<std::string> out;
    for (const auto& c : cols_) out.push_back(TextArrayLiteral(c));
    return out;
  }

 private:
  std::vector<std::vector<std::string>> cols_;
};

void Exec(pqxx::transaction_base& tx, const std::string& sql, const Columns& cols) {
  tx.exec_params(sql, pqxx::prepare::make_dynamic_params(cols.Literals()));
}

std::optional<int64_t> OptionalNum(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<int64_t>();
}

constexpr char kLockUnits[] =
    "SELECT 1 FROM units WHERE space_id = ANY($1::uuid[]) ORDER BY id FOR UPDATE";

// Each mark is read by a subquery (the primary key, once per Unit), never joined: the
// statistics of tag_marks know nothing of a new ChangeOrder's Tags, and a promotion adds
// thousands of marks to them while it runs. As LEFT JOINs, the planner took each Tag's marks
// for one row and scanned all of them (materialized) once per Unit: 32 s a batch at 10,000
// Spaces, on a database analyzed before the Tags had marks. Each Space's Units are read by the
// (space_id, slug) index in a LATERAL subquery the planner cannot flatten (OFFSET 0): with
// `space_id = ANY`, it scanned every Unit of the fleet in parallel for a batch of 500 Spaces
// (60 to 110 ms a batch at 10,000 Spaces, against about 50).
constexpr char kPromotionUnits[] =
    "SELECT u.id, u.space_id, u.slug, u.toolchain_type, u.labels::text AS labels_json,"
    " u.annotations::text AS annotations_json, u.head_revision_num, u.protected_paths,"
    " coalesce(u.change_set_id::text, '') AS change_set_id,"
    " (SELECT m.revision_num FROM tag_marks m WHERE m.tag_id = $2::uuid AND m.unit_id = u.id)"
    " AS start_mark,"
    " (SELECT m.revision_num FROM tag_marks m WHERE m.tag_id = $3::uuid AND m.unit_id = u.id)"
    " AS end_mark,"
    " (SELECT m.revision_num FROM tag_marks m WHERE m.tag_id = $4::uuid AND m.unit_id = u.id)"
    " AS publish_mark"
    " FROM (SELECT DISTINCT id FROM unnest($1::uuid[]) AS id) AS t"
    " CROSS JOIN LATERAL (SELECT * FROM units x WHERE x.space_id = t.id OFFSET 0) AS u"
    " ORDER BY u.space_id, u.slug";

PromotionUnit PromotionUnitFromRow(const pqxx::row& r) {
  PromotionUnit u;
  u.id = r["id"].as<std::string>();
  u.space_id = r["space_id"].as<std::string>();
  u.slug = r["slug"].as<std::string>();
  u.toolchain_type = r["toolchain_type"].as<std::string>();
  u.labels_json = r["labels_json"].as<std::string>();
  u.annotations_json = r["annotations_json"].as<std::string>();
  u.head = r["head_revision_num"].as<int64_t>();
  u.protected_paths = ReadTextArray(r["protected_paths"]);
  u.change_set_id = r["change_set_id"].as<std::string>();
  u.start_mark = OptionalNum(r["start_mark"]);
  u.end_mark = OptionalNum(r["end_mark"]);
  u.publish_mark = OptionalNum(r["publish_mark"]);
  return u;
}

// The Links' select list, completed by each reader's WHERE clause.
constexpr char kLinkSelect[] =
    "SELECT l.id, l.slug, l.from_unit_id, fu.space_id AS from_space_id, l.to_unit_id,"
    " tu.space_id AS to_space_id, l.upstream_revision_num, l.protect, l.auto_update"
    " FROM links l JOIN units fu ON fu.id = l.from_unit_id"
    " JOIN units tu ON tu.id = l.to_unit_id WHERE ";

PromotionLink PromotionLinkFromRow(const pqxx::row& r) {
  PromotionLink l;
  l.id = r["id"].as<std::string>();
  l.slug = r["slug"].as<std::string>();
  l.from_unit_id = r["from_unit_id"].as<std::string>();
  l.from_space_id = r["from_space_id"].as<std::string>();
  l.to_unit_id = r["to_unit_id"].as<std::string>();
  l.to_space_id = r["to_space_id"].as<std::string>();
  l.cursor = r["upstream_revision_num"].as<int64_t>();
  l.protect = r["protect"].as<bool>();
  l.auto_update = r["auto_update"].as<bool>();
  return l;
}

std::vector<PromotionLink> ReadLinks(const pqxx::result& r) {
  std::vector<PromotionLink> out;
  out.reserve(r.size());
  for (const auto& row : r) out.push_back(PromotionLinkFromRow(row));
  return out;
}

constexpr char kRevisionData[] =
    "SELECT r.unit_id, r.revision_num, r.data, r.data_hash, r.description"
    " FROM unnest($1::uuid[], $2::bigint[], $3::bigint[]) AS q(id, lo, hi)"
    " JOIN revisions r ON r.unit_id = q.id AND r.revision_num BETWEEN q.lo AND q.hi";

RevisionData RevisionDataFromRow(const pqxx::row& r) {
  return RevisionData{r["data"].as<std::string>(), r["data_hash"].as<std::string>(),
                      r["description"].as<std::string>()};
}

}  // namespace

absl::Status LockPromotionUnits(Tx& tx, const std::vector<std::string>& space_ids) {
  return Guard([&] {
    if (!space_ids.empty()) Pq(tx).exec_params(kLockUnits, TextArrayLiteral(space_ids));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<PromotionUnit>> LoadPromotionUnits(
    Tx& tx, const std::vector<std::string>& space_ids,
    const std::vector<std::string>& lock_space_ids, const PromotionTags& tags) {
  return Guard([&]() -> absl::StatusOr<std::vector<PromotionUnit>> {
    if (!lock_space_ids.empty()) {
      Pq(tx).exec_params(kLockUnits, TextArrayLiteral(lock_space_ids));
    }
    pqxx::result r = Pq(tx).exec_params(kPromotionUnits, TextArrayLiteral(space_ids),
                                        tags.start_tag_id, tags.end_tag_id, tags.publish_tag_id);
    std::vector<PromotionUnit> out;
    out.reserve(r.size());
    for (const auto& row : r) out.push_back(PromotionUnitFromRow(row));
    return out;
  });
}

absl::StatusOr<std::vector<PromotionLink>> LoadLinksFrom(Tx& tx,
                                                         const std::vector<std::string>& space_ids,
                                                         const std::string& update_type) {
  return Guard([&]() -> absl::StatusOr<std::vector<PromotionLink>> {
    // Each Space's Units (by the (space_id, slug) index), then each Unit's Links (by
    // `links_from_unit`) and the Units they lead to, in LATERAL subqueries the planner can
    // neither flatten nor reorder (OFFSET 0): a batch of a large Stage reads its own Links, not
    // the fleet's. As plain joins, the planner scanned every Link (or every Unit, probing each
    // one's Links) once per batch, 125 to 240 ms a batch at 5,000 Spaces for 5,000 rows, with
    // statistics taken before a bulk variant create.
    return ReadLinks(Pq(tx).exec_params(
        "SELECT l.id, l.slug, l.from_unit_id, t.space_id AS from_space_id, l.to_unit_id,"
        " l.to_space_id, l.upstream_revision_num, l.protect, l.auto_update"
        " FROM unnest($1::uuid[]) AS t(space_id)"
        " CROSS JOIN LATERAL (SELECT u.id FROM units u WHERE u.space_id = t.space_id OFFSET 0) fu"
        " CROSS JOIN LATERAL (SELECT x.*, tu.space_id AS to_space_id FROM links x"
        " JOIN units tu ON tu.id = x.to_unit_id WHERE x.from_unit_id = fu.id"
        " AND x.update_type = $2 OFFSET 0) l",
        TextArrayLiteral(space_ids), update_type));
  });
}

absl::StatusOr<std::vector<PromotionLink>> LoadLinksInto(
    Tx& tx, const std::string& to_space_id, const std::vector<std::string>& from_space_ids,
    const std::string& update_type) {
  return Guard([&]() -> absl::StatusOr<std::vector<PromotionLink>> {
    return ReadLinks(
        Pq(tx).exec_params(absl::StrCat(kLinkSelect,
                                        "tu.space_id = $1::uuid AND fu.space_id = ANY($2::uuid[])"
                                        " AND l.update_type = $3"),
                           to_space_id, TextArrayLiteral(from_space_ids), update_type));
  });
}

absl::StatusOr<std::set<std::string>> UnitsMatching(Tx& tx,
                                                    const std::vector<std::string>& space_ids,
                                                    const std::string& where) {
  return Guard([&]() -> absl::StatusOr<std::set<std::string>> {
    Query q(
        "SELECT u.id::text AS id FROM units u JOIN spaces s ON s.id = u.space_id"
        " LEFT JOIN components c ON c.id = s.component_id WHERE u.space_id = ANY(");
    q.Append(absl::StrCat(q.Param(TextArrayLiteral(space_ids)), "::uuid[])"));
    CUB_RETURN_IF_ERROR(q.AndWhere(where, UnitSchema()));
    std::set<std::string> out;
    for (const auto& row : q.Exec(tx)) out.insert(row["id"].as<std::string>());
    return out;
  });
}

absl::StatusOr<std::map<std::pair<std::string, int64_t>, RevisionData>> LoadRevisionData(
    Tx& tx, const std::vector<RevisionSpan>& spans) {
  using Out = std::map<std::pair<std::string, int64_t>, RevisionData>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    if (spans.empty()) return out;
    Columns c;
    for (const auto& s : spans) {
      c[0].push_back(s.unit_id);
      c[1].push_back(std::to_string(s.lo));
      c[2].push_back(std::to_string(s.hi));
    }
    auto params = c.Literals();
    pqxx::result r = Pq(tx).exec_params(kRevisionData, params[0], params[1], params[2]);
    for (const auto& row : r) {
      out[{row["unit_id"].as<std::string>(), row["revision_num"].as<int64_t>()}] =
          RevisionDataFromRow(row);
    }
    return out;
  });
}

bool PromotionWrites::empty() const {
  return units.empty() && revisions.empty() && heads.empty() && links.empty() && cursors.empty() &&
         marks.empty();
}

void PromotionWrites::Append(PromotionWrites&& o) {
  auto move_all = [](auto& to, auto& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  };
  move_all(units, o.units);
  move_all(revisions, o.revisions);
  move_all(heads, o.heads);
  move_all(links, o.links);
  move_all(cursors, o.cursors);
  move_all(marks, o.marks);
}

namespace {

// One statement per table (or column updated), each skipped when it has no rows to write.

void WriteUnits(pqxx::transaction_base& tx, const std::vector<PromotionWrites::Unit>& units) {
  if (units.empty()) return;
  Columns c;
  for (const auto& u : units) {
    c[0].push_back(u.id);
    c[1].push_back(u.space_id);
    c[2].push_back(u.slug);
    c[3].push_back(u.toolchain_type);
    c[4].push_back(u.labels_json);
    c[5].push_back(u.annotations_json);
    c[6].push_back(u.upstream_unit_id);
  }
  Exec(tx,
       "INSERT INTO units (id, space_id, slug, toolchain_type, labels, annotations,"
       " upstream_unit_id) SELECT id, space_id, slug, tc, l::jsonb, a::jsonb, up"
       " FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],"
       " $7::uuid[]) AS v(id, space_id, slug, tc, l, a, up)",
       c);
}

void WriteRevisions(pqxx::transaction_base& tx,
                    const std::vector<PromotionWrites::Revision>& revisions) {
  if (revisions.empty()) return;
  Columns c;
  for (const auto& r : revisions) {
    c[0].push_back(r.unit_id);
    c[1].push_back(r.space_id);
    c[2].push_back(std::to_string(r.num));
    c[3].push_back(r.data);
    c[4].push_back(r.data_hash);
    c[5].push_back(r.author_id);
    c[6].push_back(r.description);
    c[7].push_back(r.upstream_unit_id);
    c[8].push_back(std::to_string(r.upstream_num));
    c[9].push_back(r.conflicts_json);
    c[10].push_back(r.validation_errors_json);
    c[11].push_back(r.change_order_id);
    c[12].push_back(std::to_string(r.restored_from_num));
  }
  Exec(tx,
       "INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash, author_id,"
       " description, upstream_unit_id, upstream_revision_num, conflicts, validation_errors,"
       " change_order_id, restored_from_num)"
       " SELECT u, s, n, d, h, NULLIF(a, '')::uuid, descr, NULLIF(up, '')::uuid, upn,"
       " c::jsonb, ve::jsonb, NULLIF(co, '')::uuid, rf"
       " FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[],"
       " $7::text[], $8::text[], $9::bigint[], $10::text[], $11::text[], $12::text[],"
       " $13::bigint[]) AS v(u, s, n, d, h, a, descr, up, upn, c, ve, co, rf)",
       c);
}

void WriteHeads(pqxx::transaction_base& tx,
                const std::vector<std::pair<std::string, int64_t>>& heads) {
  if (heads.empty()) return;
  Columns c;
  for (const auto& [id, head] : heads) {
    c[0].push_back(id);
    c[1].push_back(std::to_string(head));
  }
  Exec(tx,
       "UPDATE units u SET head_revision_num = v.head, updated_at = now(),"
       " version = u.version + 1 FROM unnest($1::uuid[], $2::bigint[]) AS v(id, head)"
       " WHERE u.id = v.id",
       c);
}

void WriteLinks(pqxx::transaction_base& tx, const std::vector<PromotionWrites::Link>& links) {
  if (links.empty()) return;
  Columns c;
  for (const auto& l : links) {
    c[0].push_back(l.space_id);
    c[1].push_back(l.slug);
    c[2].push_back(l.from_unit_id);
    c[3].push_back(l.to_unit_id);
    c[4].push_back(l.update_type);
    c[5].push_back(std::to_string(l.cursor));
  }
  Exec(tx,
       "INSERT INTO links (space_id, slug, from_unit_id, to_unit_id, update_type,"
       " upstream_revision_num) SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[],"
       " $4::uuid[], $5::text[], $6::bigint[])",
       c);
}

void WriteCursors(pqxx::transaction_base& tx,
                  const std::vector<std::pair<std::string, int64_t>>& cursors) {
  if (cursors.empty()) return;
  Columns c;
  for (const auto& [id, cursor] : cursors) {
    c[0].push_back(id);
    c[1].push_back(std::to_string(cursor));
  }
  Exec(tx,
       "UPDATE links l SET upstream_revision_num = v.cursor, updated_at = now(),"
       " version = l.version + 1 FROM unnest($1::uuid[], $2::bigint[]) AS v(id, cursor)"
       " WHERE l.id = v.id",
       c);
}

void WriteMarks(pqxx::transaction_base& tx, const std::vector<PromotionWrites::Mark>& marks) {
  if (marks.empty()) return;
  Columns c;
  for (const auto& m : marks) {
    c[0].push_back(m.tag_id);
    c[1].push_back(m.unit_id);
    c[2].push_back(std::to_string(m.num));
  }
  Exec(tx,
       "INSERT INTO tag_marks (tag_id, unit_id, revision_num)"
       " SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[])",
       c);
}

// The head and cursor updates name their rows by primary key, a batch at a time. With hash
// or merge joins allowed, PostgreSQL hashes every Unit (or Link) of the database to find a
// batch's few thousand: at 10,000 Spaces the join took 50 to 55 ms of each update, batch after
// batch, where index lookups take about half that. The planner prefers the scan because it
// prices each lookup as a random read; the rows are cached, and the join it picks spills to
// disk besides. So the updates run with those joins off (SET LOCAL), and the values they had
// are put back afterwards: SET LOCAL ... TO DEFAULT would drop a SET of the session's own.
struct JoinSettings {
  std::string hash, merge;
};

// The subquery (OFFSET 0 keeps it from being folded in) is read before the set_config calls
// run; the integration test would see the settings come back off were it not.
constexpr char kIndexJoinsOnly[] =
    "SELECT s.hash, s.merge, set_config('enable_hashjoin', 'off', true),"
    " set_config('enable_mergejoin', 'off', true)"
    " FROM (SELECT current_setting('enable_hashjoin') AS hash,"
    " current_setting('enable_mergejoin') AS merge OFFSET 0) AS s";

JoinSettings IndexJoinsOnly(pqxx::transaction_base& tx) {
  const pqxx::row r = tx.exec1(kIndexJoinsOnly);
  return {r["hash"].as<std::string>(), r["merge"].as<std::string>()};
}

void RestoreJoins(pqxx::transaction_base& tx, const JoinSettings& was) {
  tx.exec_params(
      "SELECT set_config('enable_hashjoin', $1, true),"
      " set_config('enable_mergejoin', $2, true)",
      was.hash, was.merge);
}

}  // namespace

absl::Status WritePromotion(Tx& tx, const PromotionWrites& w) {
  return Guard([&] {
    // Units first: the revisions, Links and marks written after them may refer to them.
    WriteUnits(Pq(tx), w.units);
    WriteRevisions(Pq(tx), w.revisions);
    WriteLinks(Pq(tx), w.links);
    std::optional<JoinSettings> joins;
    if (!w.heads.empty() || !w.cursors.empty()) joins = IndexJoinsOnly(Pq(tx));
    WriteHeads(Pq(tx), w.heads);
    WriteCursors(Pq(tx), w.cursors);
    if (joins) RestoreJoins(Pq(tx), *joins);
    WriteMarks(Pq(tx), w.marks);
    return absl::OkStatus();
  });
}

}  // namespace cub::store
