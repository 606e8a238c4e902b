#include "lib/store/attestations.h"

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/schemas.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/uuid.h"

namespace cub::store {
namespace {

const std::string kAttestationSelect = absl::StrCat(
    "SELECT at.id, at.space_id, at.space_slug, at.type, at.result,"
    " coalesce(at.revokes_id::text, '') AS revokes_id, at.user_id, at.username, at.groups,"
    " coalesce(at.change_order_id::text, '') AS change_order_id, at.change_order, at.note, ",
    MapAsArray("at.claims"), " AS claims, coalesce(", Rfc3339("at.expires_at"),
    ", '') AS expires_at, ", Rfc3339("at.created_at"),
    " AS created_at, coalesce((SELECT r.id::text FROM attestations r WHERE r.revokes_id = at.id"
    " LIMIT 1), '') AS revoked_by_id"
    " FROM attestations at WHERE TRUE");

v1::Attestation AttestationFromRow(const pqxx::row& r) {
  v1::Attestation a;
  a.set_attestation_id(r["id"].as<std::string>());
  a.set_space_id(r["space_id"].as<std::string>());
  a.set_space_slug(r["space_slug"].as<std::string>());
  a.set_type(r["type"].as<std::string>());
  a.set_result(r["result"].as<std::string>());
  a.set_revokes_id(r["revokes_id"].as<std::string>());
  a.set_user_id(r["user_id"].as<std::string>());
  a.set_user(r["username"].as<std::string>());
  for (auto& g : ReadTextArray(r["groups"])) a.add_groups(g);
  a.set_change_order_id(r["change_order_id"].as<std::string>());
  a.set_change_order(r["change_order"].as<std::string>());
  a.set_note(r["note"].as<std::string>());
  FillMap(ReadMap(r["claims"]), a.mutable_claims());
  a.set_expires_at(r["expires_at"].as<std::string>());
  a.set_created_at(r["created_at"].as<std::string>());
  a.set_revoked_by_id(r["revoked_by_id"].as<std::string>());
  return a;
}

void FillAttestedRevision(const pqxx::row& r, v1::AttestedRevision* out) {
  out->set_unit_id(r["unit_id"].as<std::string>());
  out->set_unit(r["unit_slug"].as<std::string>());
  out->set_revision_num(r["revision_num"].as<int64_t>());
  out->set_data_hash(r["data_hash"].as<std::string>());
}

// Fills in each attestation's revisions with one query. Runs inside a Guard.
std::vector<v1::Attestation> ReadAll(Tx& tx, const pqxx::result& rows) {
  std::vector<v1::Attestation> out;
  std::vector<std::string> ids;
  for (const auto& row : rows) {
    out.push_back(AttestationFromRow(row));
    ids.push_back(out.back().attestation_id());
  }
  if (ids.empty()) return out;
  std::map<std::string, v1::Attestation*> by_id;
  for (auto& a : out) by_id[a.attestation_id()] = &a;
  pqxx::result revs = Pq(tx).exec_params(
      "SELECT attestation_id::text AS attestation_id, unit_id::text AS unit_id, unit_slug,"
      " revision_num, data_hash FROM attestation_revisions"
      " WHERE attestation_id = ANY($1::uuid[]) ORDER BY unit_slug",
      TextArrayLiteral(ids));
  for (const auto& row : revs) {
    FillAttestedRevision(row, by_id[row["attestation_id"].as<std::string>()]->add_revisions());
  }
  return out;
}

ReadRevision ReadRevisionFromRow(const pqxx::row& r) {
  return {r["space_id"].as<std::string>(), r["unit_id"].as<std::string>(),
          r["unit_slug"].as<std::string>(), r["revision_num"].as<int64_t>()};
}

Vote VoteFromRow(const pqxx::row& r) {
  Vote v;
  v.attestation_id = r["attestation_id"].as<std::string>();
  v.user_id = r["user_id"].as<std::string>();
  v.username = r["username"].as<std::string>();
  v.groups = ReadTextArray(r["groups"]);
  v.result = r["result"].as<std::string>();
  v.at = absl::FromUnixMicros(static_cast<int64_t>(r["created_epoch"].as<double>() * 1e6));
  v.voted_revision_num = r["voted_revision_num"].as<int64_t>();
  v.expired = r["expired"].as<bool>();
  v.revoked = r["revoked"].as<bool>();
  return v;
}

// Rows of (`key`, user_id) as {key -> user IDs}.
std::map<std::string, std::set<std::string>> Grouped(const pqxx::result& r, const char* key) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& row : r)
    out[row[key].as<std::string>()].insert(row["user_id"].as<std::string>());
  return out;
}

}  // namespace

absl::StatusOr<v1::Attestation> InsertAttestation(Tx& tx, const NewAttestation& a) {
  CUB_ASSIGN_OR_RETURN(auto stored, InsertAttestations(tx, {a}));
  if (stored.size() != 1) return absl::InternalError("attestation vanished after insert");
  return std::move(stored[0]);
}

absl::StatusOr<std::vector<v1::Attestation>> InsertAttestations(
    Tx& tx, const std::vector<NewAttestation>& all) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Attestation>> {
    std::vector<v1::Attestation> out;
    if (all.empty()) return out;
    // Keys made here, so the revisions can name their attestation in the same round trip's
    // second statement and the rows come back in the order given.
    std::vector<std::string> ids, space_ids, slugs, types, results, revokes, user_ids, usernames,
        groups, co_ids, cos, notes, claims, expires;
    std::vector<std::string> rev_att, rev_units, rev_slugs, rev_nums, rev_hashes;
    for (const auto& a : all) {
      ids.push_back(NewUuid());
      space_ids.push_back(a.space_id);
      slugs.push_back(a.space_slug);
      types.push_back(a.type);
      results.push_back(a.result);
      revokes.push_back(a.revokes_id);
      user_ids.push_back(a.user_id);
      usernames.push_back(a.username);
      groups.push_back(Json(a.groups).dump());
      co_ids.push_back(a.change_order_id);
      cos.push_back(a.change_order);
      notes.push_back(a.note);
      claims.push_back(JsonText(a.claims));
      expires.push_back(std::to_string(a.expires_in_seconds));
      for (const auto& rev : a.revisions) {
        rev_att.push_back(ids.back());
        rev_units.push_back(rev.unit_id());
        rev_slugs.push_back(rev.unit());
        rev_nums.push_back(std::to_string(rev.revision_num()));
        rev_hashes.push_back(rev.data_hash());
      }
    }
    Pq(tx).exec_params(
        "INSERT INTO attestations (id, space_id, space_slug, type, result, revokes_id, user_id,"
        " username, groups, change_order_id, change_order, note, claims, expires_at)"
        " SELECT n.id, n.space_id, n.space_slug, n.type, n.result, NULLIF(n.revokes_id, '')::uuid,"
        " n.user_id, n.username, ARRAY(SELECT jsonb_array_elements_text(n.groups)),"
        " NULLIF(n.co_id, '')::uuid, n.co, n.note, n.claims,"
        " CASE WHEN n.expires > 0 THEN clock_timestamp() + make_interval(secs => n.expires) END"
        " FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[],"
        " $7::uuid[], $8::text[], $9::jsonb[], $10::text[], $11::text[], $12::text[],"
        " $13::jsonb[], $14::bigint[]) WITH ORDINALITY AS n(id, space_id, space_slug, type,"
        " result, revokes_id, user_id, username, groups, co_id, co, note, claims, expires, i)"
        " ORDER BY n.i",
        TextArrayLiteral(ids), TextArrayLiteral(space_ids), TextArrayLiteral(slugs),
        TextArrayLiteral(types), TextArrayLiteral(results), TextArrayLiteral(revokes),
        TextArrayLiteral(user_ids), TextArrayLiteral(usernames), TextArrayLiteral(groups),
        TextArrayLiteral(co_ids), TextArrayLiteral(cos), TextArrayLiteral(notes),
        TextArrayLiteral(claims), TextArrayLiteral(expires));
    if (!rev_att.empty()) {
      Pq(tx).exec_params(
          "INSERT INTO attestation_revisions (attestation_id, unit_id, unit_slug, revision_num,"
          " data_hash) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[],"
          " $5::text[])",
          TextArrayLiteral(rev_att), TextArrayLiteral(rev_units), TextArrayLiteral(rev_slugs),
          TextArrayLiteral(rev_nums), TextArrayLiteral(rev_hashes));
    }
    Query q(kAttestationSelect);
    q.Append(absl::StrCat(" AND at.id = ANY(", q.Param(TextArrayLiteral(ids)), "::uuid[])"));
    std::vector<v1::Attestation> read = ReadAll(tx, q.Exec(tx));
    std::map<std::string, v1::Attestation*> by_id;
    for (auto& a : read) by_id[a.attestation_id()] = &a;
    out.reserve(ids.size());
    for (const auto& id : ids) {
      auto it = by_id.find(id);
      if (it == by_id.end()) return absl::InternalError("attestation vanished after insert");
      out.push_back(std::move(*it->second));
    }
    return out;
  });
}

absl::StatusOr<std::optional<v1::Attestation>> FindAttestation(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Attestation>> {
    Query q(kAttestationSelect);
    q.Append(absl::StrCat(" AND at.id::text = ", q.Param(id)));
    auto all = ReadAll(tx, q.Exec(tx));
    if (all.empty()) return std::nullopt;
    return std::move(all[0]);
  });
}

absl::StatusOr<std::vector<v1::Attestation>> ListAttestations(Tx& tx, const Caller& caller,
                                                              const std::string& space_id,
                                                              std::string_view where,
                                                              const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Attestation>> {
    Query q(kAttestationSelect);
    if (!space_id.empty()) {
      q.Append(absl::StrCat(" AND at.space_id = ", q.Param(space_id), "::uuid"));
    } else if (!caller.admin) {
      AndVisible(q, caller, "at.space_id");
    }
    CUB_RETURN_IF_ERROR(q.AndWhere(where, AttestationSchema()));
    if (!page.after.empty()) {
      // The key is the ID; the creation time it sorts by first is read back from its row
      // (Attestations are append-only). The key row is held to the same scope as the list, so a
      // forged token naming another Space's Attestation learns nothing of it: no row, no page.
      q.Append(absl::StrCat(" AND (at.created_at, at.id) > (SELECT k.created_at, k.id FROM",
                            " attestations k WHERE k.id = ", q.Param(page.after[0]), "::uuid"));
      if (!space_id.empty()) {
        q.Append(absl::StrCat(" AND k.space_id = ", q.Param(space_id), "::uuid"));
      } else {
        AndVisible(q, caller, "k.space_id");
      }
      q.Append(")");
    }
    OrderAndLimit(q, page, "at.created_at, at.id");
    return ReadAll(tx, q.Exec(tx));
  });
}

absl::StatusOr<std::vector<ReadRevision>> ChangedRevisions(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::vector<ReadRevision>> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT u.space_id::text AS space_id, u.id::text AS unit_id, u.slug AS unit_slug,"
        " mp.revision_num FROM tag_marks mp JOIN units u ON u.id = mp.unit_id"
        " WHERE mp.tag_id = $2::uuid AND u.space_id = ANY($3::uuid[])"
        " AND (SELECT ms.revision_num FROM tag_marks ms WHERE ms.tag_id = $1::uuid"
        " AND ms.unit_id = u.id) IS DISTINCT FROM mp.revision_num ORDER BY u.space_id, u.slug",
        start_tag_id, publish_tag_id, TextArrayLiteral(space_ids));
    std::vector<ReadRevision> out;
    for (const auto& row : r) out.push_back(ReadRevisionFromRow(row));
    return out;
  });
}

absl::StatusOr<std::map<std::pair<std::string, int64_t>, std::vector<Vote>>> CurrentVotes(
    Tx& tx, const std::string& type, const std::vector<ReadRevision>& reads) {
  using Out = std::map<std::pair<std::string, int64_t>, std::vector<Vote>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    if (reads.empty()) return out;
    std::vector<std::string> units, nums;
    for (const auto& r : reads) {
      units.push_back(r.unit_id);
      nums.push_back(std::to_string(r.revision_num));
    }
    // A vote covers the revision it names and later ones of identical content.
    pqxx::result r = Pq(tx).exec_params(
        "SELECT q.unit_id::text AS read_unit_id, q.num AS read_num,"
        " a.id::text AS attestation_id, a.user_id::text AS user_id, a.username, a.groups,"
        " a.result, extract(epoch from a.created_at)::float8 AS created_epoch,"
        " ar.revision_num AS voted_revision_num,"
        " (a.expires_at IS NOT NULL AND a.expires_at <= clock_timestamp()) AS expired,"
        " EXISTS (SELECT 1 FROM attestations rk WHERE rk.revokes_id = a.id) AS revoked"
        " FROM unnest($2::uuid[], $3::bigint[]) AS q(unit_id, num)"
        " JOIN revisions rv ON rv.unit_id = q.unit_id AND rv.revision_num = q.num"
        " JOIN attestation_revisions ar ON ar.unit_id = q.unit_id AND ar.data_hash = rv.data_hash"
        "  AND ar.revision_num <= q.num"
        " JOIN attestations a ON a.id = ar.attestation_id"
        " WHERE a.type = $1 AND a.result IN ('Pass', 'Fail')"
        " ORDER BY a.created_at, a.id",
        type, TextArrayLiteral(units), TextArrayLiteral(nums));
    for (const auto& row : r) {
      out[{row["read_unit_id"].as<std::string>(), row["read_num"].as<int64_t>()}].push_back(
          VoteFromRow(row));
    }
    return out;
  });
}

absl::StatusOr<std::map<std::string, std::set<std::string>>> ChangeAuthors(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, std::set<std::string>>> {
    return Grouped(
        Pq(tx).exec_params(
            "SELECT DISTINCT u.space_id::text AS space_id, rv.author_id::text AS user_id"
            " FROM tag_marks ms JOIN units u ON u.id = ms.unit_id"
            " JOIN revisions rv ON rv.unit_id = u.id AND rv.revision_num > ms.revision_num"
            "  AND rv.revision_num <= coalesce((SELECT mp.revision_num FROM tag_marks mp"
            "  WHERE mp.tag_id = $2::uuid AND mp.unit_id = u.id), u.head_revision_num)"
            " WHERE ms.tag_id = $1::uuid AND u.space_id = ANY($3::uuid[])"
            " AND rv.author_id IS NOT NULL",
            start_tag_id, publish_tag_id, TextArrayLiteral(space_ids)),
        "space_id");
  });
}

absl::StatusOr<std::map<std::string, std::set<std::string>>> Approvers(
    Tx& tx, const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, std::set<std::string>>> {
    return Grouped(
        Pq(tx).exec_params(
            "SELECT DISTINCT p.space_id::text AS space_id,"
            " coalesce(p.user_id, g.user_id)::text AS user_id"
            " FROM space_permissions p LEFT JOIN user_groups g ON g.group_name = p.group_name"
            " JOIN users u ON u.id = coalesce(p.user_id, g.user_id)"
            " WHERE p.space_id = ANY($1::uuid[]) AND p.role IN ('approver', 'admin')"
            " AND NOT u.service_account AND NOT u.admin",
            TextArrayLiteral(space_ids)),
        "space_id");
  });
}

absl::StatusOr<std::map<std::string, std::set<std::string>>> GroupMembers(
    Tx& tx, const std::vector<std::string>& groups) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, std::set<std::string>>> {
    return Grouped(Pq(tx).exec_params("SELECT group_name, user_id::text AS user_id FROM user_groups"
                                      " WHERE group_name = ANY($1::text[])",
                                      TextArrayLiteral(groups)),
                   "group_name");
  });
}

}  // namespace cub::store
