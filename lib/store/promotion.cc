#include "lib/store/promotion.h"

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

}  // namespace

std::vector<PromotionUnit> LoadPromotionUnits(Tx& tx, const std::vector<std::string>& space_ids,
                                              const std::vector<std::string>& lock_space_ids,
                                              const PromotionTags& tags) {
  if (!lock_space_ids.empty()) {
    Pq(tx).exec_params(
        "SELECT 1 FROM units WHERE space_id = ANY($1::uuid[]) ORDER BY id FOR UPDATE",
        TextArrayLiteral(lock_space_ids));
  }
  pqxx::result r = Pq(tx).exec_params(
      "SELECT u.id, u.space_id, u.slug, u.toolchain_type, u.labels::text, u.annotations::text,"
      " u.head_revision_num, u.protected_paths, coalesce(u.change_set_id::text, ''), "
      "ms.revision_num, me.revision_num, mp.revision_num"
      " FROM units u"
      " LEFT JOIN tag_marks ms ON ms.tag_id = $2::uuid AND ms.unit_id = u.id"
      " LEFT JOIN tag_marks me ON me.tag_id = $3::uuid AND me.unit_id = u.id"
      " LEFT JOIN tag_marks mp ON mp.tag_id = $4::uuid AND mp.unit_id = u.id"
      " WHERE u.space_id = ANY($1::uuid[]) ORDER BY u.space_id, u.slug",
      TextArrayLiteral(space_ids), tags.start_tag_id, tags.end_tag_id, tags.publish_tag_id);
  std::vector<PromotionUnit> out;
  out.reserve(r.size());
  for (const auto& row : r) {
    PromotionUnit u;
    u.id = row[0].as<std::string>();
    u.space_id = row[1].as<std::string>();
    u.slug = row[2].as<std::string>();
    u.toolchain_type = row[3].as<std::string>();
    u.labels_json = row[4].as<std::string>();
    u.annotations_json = row[5].as<std::string>();
    u.head = row[6].as<int64_t>();
    u.protected_paths = ReadTextArray(row[7]);
    u.change_set_id = row[8].as<std::string>();
    u.start_mark = OptionalNum(row[9]);
    u.end_mark = OptionalNum(row[10]);
    u.publish_mark = OptionalNum(row[11]);
    out.push_back(std::move(u));
  }
  return out;
}

namespace {

const char* kLinkSelect =
    "SELECT l.id, l.slug, l.from_unit_id, fu.space_id, l.to_unit_id, tu.space_id,"
    " l.upstream_revision_num, l.protect, l.auto_update FROM links l JOIN units fu ON fu.id = "
    "l.from_unit_id"
    " JOIN units tu ON tu.id = l.to_unit_id WHERE ";

std::vector<PromotionLink> ReadLinks(const pqxx::result& r) {
  std::vector<PromotionLink> out;
  out.reserve(r.size());
  for (const auto& row : r) {
    PromotionLink l;
    l.id = row[0].as<std::string>();
    l.slug = row[1].as<std::string>();
    l.from_unit_id = row[2].as<std::string>();
    l.from_space_id = row[3].as<std::string>();
    l.to_unit_id = row[4].as<std::string>();
    l.to_space_id = row[5].as<std::string>();
    l.cursor = row[6].as<int64_t>();
    l.protect = row[7].as<bool>();
    l.auto_update = row[8].as<bool>();
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

std::vector<PromotionLink> LoadLinksFrom(Tx& tx, const std::vector<std::string>& space_ids,
                                         const std::string& update_type) {
  return ReadLinks(Pq(tx).exec_params(
      absl::StrCat(kLinkSelect, "fu.space_id = ANY($1::uuid[]) AND l.update_type = $2"),
      TextArrayLiteral(space_ids), update_type));
}

std::vector<PromotionLink> LoadLinksInto(Tx& tx, const std::string& to_space_id,
                                         const std::vector<std::string>& from_space_ids,
                                         const std::string& update_type) {
  return ReadLinks(
      Pq(tx).exec_params(absl::StrCat(kLinkSelect,
                                      "tu.space_id = $1::uuid AND fu.space_id = ANY($2::uuid[])"
                                      " AND l.update_type = $3"),
                         to_space_id, TextArrayLiteral(from_space_ids), update_type));
}

absl::StatusOr<std::set<std::string>> UnitsMatching(Tx& tx,
                                                    const std::vector<std::string>& space_ids,
                                                    const std::string& where) {
  Query q(
      "SELECT u.id::text FROM units u JOIN spaces s ON s.id = u.space_id"
      " LEFT JOIN components c ON c.id = s.component_id WHERE u.space_id = ANY(");
  q.Append(absl::StrCat(q.Param(TextArrayLiteral(space_ids)), "::uuid[])"));
  CUB_RETURN_IF_ERROR(q.AndWhere(where, UnitSchema()));
  std::set<std::string> out;
  for (const auto& row : q.Exec(tx)) out.insert(row[0].as<std::string>());
  return out;
}

std::map<std::pair<std::string, int64_t>, RevisionData> LoadRevisionData(
    Tx& tx, const std::vector<RevisionSpan>& spans) {
  std::map<std::pair<std::string, int64_t>, RevisionData> out;
  if (spans.empty()) return out;
  Columns c;
  for (const auto& s : spans) {
    c[0].push_back(s.unit_id);
    c[1].push_back(std::to_string(s.lo));
    c[2].push_back(std::to_string(s.hi));
  }
  auto params = c.Literals();
  pqxx::result r = Pq(tx).exec_params(
      "SELECT r.unit_id, r.revision_num, r.data, r.data_hash, r.description"
      " FROM unnest($1::uuid[], $2::bigint[], $3::bigint[]) AS q(id, lo, hi)"
      " JOIN revisions r ON r.unit_id = q.id AND r.revision_num BETWEEN q.lo AND q.hi",
      params[0], params[1], params[2]);
  for (const auto& row : r) {
    out[{row[0].as<std::string>(), row[1].as<int64_t>()}] =
        RevisionData{row[2].as<std::string>(), row[3].as<std::string>(), row[4].as<std::string>()};
  }
  return out;
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

void WriteAll(pqxx::transaction_base& tx, const PromotionWrites& w) {
  if (!w.units.empty()) {
    Columns c;
    for (const auto& u : w.units) {
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
  if (!w.revisions.empty()) {
    Columns c;
    for (const auto& r : w.revisions) {
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
  if (!w.heads.empty()) {
    Columns c;
    for (const auto& [id, head] : w.heads) {
      c[0].push_back(id);
      c[1].push_back(std::to_string(head));
    }
    Exec(tx,
         "UPDATE units u SET head_revision_num = v.head, updated_at = now(),"
         " version = u.version + 1 FROM unnest($1::uuid[], $2::bigint[]) AS v(id, head)"
         " WHERE u.id = v.id",
         c);
  }
  if (!w.links.empty()) {
    Columns c;
    for (const auto& l : w.links) {
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
  if (!w.cursors.empty()) {
    Columns c;
    for (const auto& [id, cursor] : w.cursors) {
      c[0].push_back(id);
      c[1].push_back(std::to_string(cursor));
    }
    Exec(tx,
         "UPDATE links l SET upstream_revision_num = v.cursor, updated_at = now(),"
         " version = l.version + 1 FROM unnest($1::uuid[], $2::bigint[]) AS v(id, cursor)"
         " WHERE l.id = v.id",
         c);
  }
  if (!w.marks.empty()) {
    Columns c;
    for (const auto& m : w.marks) {
      c[0].push_back(m.tag_id);
      c[1].push_back(m.unit_id);
      c[2].push_back(std::to_string(m.num));
    }
    Exec(tx,
         "INSERT INTO tag_marks (tag_id, unit_id, revision_num)"
         " SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[])",
         c);
  }
}

}  // namespace

absl::Status WritePromotion(Tx& tx, const PromotionWrites& w) {
  return Guard([&] {
    WriteAll(Pq(tx), w);
    return absl::OkStatus();
  });
}

}  // namespace cub::store
