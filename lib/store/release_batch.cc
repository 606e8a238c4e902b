#include "lib/store/release_batch.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

// The columns of a revision a bundle needs; `v` is the revisions row (LEFT JOINed).
constexpr char kRevisionColumns[] =
    " (v.unit_id IS NOT NULL) AS found, coalesce(v.data, '') AS data,"
    " coalesce(v.data_hash, '') AS data_hash,"
    " ARRAY(SELECT jsonb_array_elements_text(coalesce(v.validation_errors, '[]'::jsonb)))"
    " AS validation_errors";

void FillRevision(const pqxx::row& row, ReleasableUnit& u) {
  u.revision_found = row["found"].as<bool>();
  u.data = row["data"].as<std::string>();
  u.data_hash = row["data_hash"].as<std::string>();
  u.validation_errors = ReadTextArray(row["validation_errors"]);
}

}  // namespace

absl::StatusOr<std::vector<ReleasableUnit>> ReleasableUnits(
    Tx& tx, const std::vector<std::string>& space_ids, const std::string& tag_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<ReleasableUnit>> {
    std::vector<ReleasableUnit> out;
    if (space_ids.empty()) return out;
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat(
            "SELECT u.space_id::text AS space_id, u.id::text AS unit_id, u.slug,"
            " u.toolchain_type, coalesce(m.revision_num, u.last_released_revision_num) AS num,"
            " (m.revision_num IS NOT NULL) AS marked,",
            kRevisionColumns,
            " FROM units u"
            " LEFT JOIN LATERAL (SELECT x.revision_num FROM tag_marks x"
            "  WHERE x.tag_id = NULLIF($2, '')::uuid AND x.unit_id = u.id OFFSET 0) m ON true"
            " LEFT JOIN revisions v ON v.unit_id = u.id"
            "  AND v.revision_num = coalesce(m.revision_num, u.last_released_revision_num)"
            " WHERE u.space_id = ANY($1::uuid[]) AND u.toolchain_type <> 'ConfigHub/YAML'"
            " AND u.head_revision_num > 0 ORDER BY u.space_id, u.slug"),
        TextArrayLiteral(space_ids), tag_id);
    out.reserve(r.size());
    for (const auto& row : r) {
      ReleasableUnit u;
      u.space_id = row["space_id"].as<std::string>();
      u.unit_id = row["unit_id"].as<std::string>();
      u.slug = row["slug"].as<std::string>();
      u.toolchain = row["toolchain_type"].as<std::string>();
      u.revision_num = row["num"].as<int64_t>();
      u.marked = row["marked"].as<bool>();
      FillRevision(row, u);
      out.push_back(std::move(u));
    }
    return out;
  });
}

absl::StatusOr<std::vector<ReleasableUnit>> RevisionsOf(
    Tx& tx, const std::vector<std::pair<std::string, int64_t>>& keys) {
  return Guard([&]() -> absl::StatusOr<std::vector<ReleasableUnit>> {
    std::vector<ReleasableUnit> out(keys.size());
    if (keys.empty()) return out;
    std::vector<std::string> ids, nums;
    for (const auto& [id, num] : keys) {
      ids.push_back(id);
      nums.push_back(std::to_string(num));
    }
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat(
            "SELECT k.ord,", kRevisionColumns,
            " FROM unnest($1::uuid[], $2::bigint[]) WITH ORDINALITY AS k(unit_id, num, ord)"
            " LEFT JOIN revisions v ON v.unit_id = k.unit_id AND v.revision_num = k.num"),
        TextArrayLiteral(ids), TextArrayLiteral(nums));
    for (const auto& row : r) {
      size_t i = row["ord"].as<size_t>() - 1;
      out[i].unit_id = keys[i].first;
      out[i].revision_num = keys[i].second;
      FillRevision(row, out[i]);
    }
    return out;
  });
}

absl::StatusOr<std::vector<std::string>> InsertReleases(
    Tx& tx, const std::vector<NewReleaseWithFiles>& releases) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    std::vector<std::string> ids;
    if (releases.empty()) return ids;
    std::vector<std::string> space_id, space_slug, target_id, target, num, co_id, co, selector,
        description, digest, by, at, provenance, sealed;
    for (const auto& x : releases) {
      const NewRelease& r = x.row;
      space_id.push_back(r.space_id);
      space_slug.push_back(r.space_slug);
      target_id.push_back(r.target_id);
      target.push_back(r.target);
      num.push_back(std::to_string(r.release_num));
      co_id.push_back(r.change_order_id);
      co.push_back(r.change_order);
      selector.push_back(r.revision_selector);
      description.push_back(r.description);
      digest.push_back(r.bundle_digest);
      by.push_back(r.published_by);
      at.push_back(r.published_at);
      provenance.push_back(r.provenance);
      sealed.push_back(r.sealed_approvals);
    }
    // Each Space once per batch: the returned rows are matched to the input by Space.
    pqxx::result rows = Pq(tx).exec_params(
        "INSERT INTO releases (space_id, space_slug, target_id, target, release_num,"
        " change_order_id, change_order, revision_selector, description, bundle_digest,"
        " published_by, published_at, provenance, sealed_approvals)"
        " SELECT a::uuid, b, c::uuid, d, e::bigint, NULLIF(f, '')::uuid, g, h, i, j,"
        " NULLIF(k, '')::uuid, l::timestamptz, m, n"
        " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
        " $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],"
        " $14::text[]) AS x(a, b, c, d, e, f, g, h, i, j, k, l, m, n)"
        " RETURNING id::text AS id, space_id::text AS space_id",
        TextArrayLiteral(space_id), TextArrayLiteral(space_slug), TextArrayLiteral(target_id),
        TextArrayLiteral(target), TextArrayLiteral(num), TextArrayLiteral(co_id),
        TextArrayLiteral(co), TextArrayLiteral(selector), TextArrayLiteral(description),
        TextArrayLiteral(digest), TextArrayLiteral(by), TextArrayLiteral(at),
        TextArrayLiteral(provenance), TextArrayLiteral(sealed));
    // Delivery workers wake at commit (lib/ops/delivery.h).
    Pq(tx).exec0("NOTIFY cub_delivery");
    std::map<std::string, std::string> id_of_space;
    for (const auto& row : rows) {
      id_of_space[row["space_id"].as<std::string>()] = row["id"].as<std::string>();
    }
    std::vector<std::string> rel, unit_ids, slugs, nums, hashes, files;
    for (const auto& x : releases) {
      const std::string& id = id_of_space.at(x.row.space_id);
      ids.push_back(id);
      for (size_t i = 0; i < x.row.units.size(); ++i) {
        const auto& u = x.row.units[i];
        rel.push_back(id);
        unit_ids.push_back(u.unit_id());
        slugs.push_back(u.unit());
        nums.push_back(std::to_string(u.revision_num()));
        hashes.push_back(u.data_hash());
        files.push_back(i < x.file_names.size() ? x.file_names[i] : u.unit() + ".yaml");
      }
    }
    Pq(tx).exec_params(
        "INSERT INTO release_units (release_id, unit_id, unit_slug, revision_num, data_hash,"
        " file_name) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[],"
        " $5::text[], $6::text[])",
        TextArrayLiteral(rel), TextArrayLiteral(unit_ids), TextArrayLiteral(slugs),
        TextArrayLiteral(nums), TextArrayLiteral(hashes), TextArrayLiteral(files));
    Pq(tx).exec_params(
        "UPDATE units u SET last_released_revision_num = v.n, updated_at = now()"
        " FROM unnest($1::uuid[], $2::bigint[]) AS v(id, n) WHERE u.id = v.id",
        TextArrayLiteral(unit_ids), TextArrayLiteral(nums));
    Pq(tx).exec_params(
        "UPDATE deployments SET ended_at = now(), end_reason = 'Superseded'"
        " WHERE space_id = ANY($1::uuid[]) AND ended_at IS NULL",
        TextArrayLiteral(space_id));
    Pq(tx).exec_params(
        "INSERT INTO deployments (space_id, release_id)"
        " SELECT * FROM unnest($1::uuid[], $2::uuid[])",
        TextArrayLiteral(space_id), TextArrayLiteral(ids));
    return ids;
  });
}

absl::StatusOr<std::map<std::string, StoredFiles>> ReleasesFiles(
    Tx& tx, const std::vector<std::string>& release_ids) {
  using Out = std::map<std::string, StoredFiles>;
  return Guard([&]() -> absl::StatusOr<Out> {
    Out out;
    if (release_ids.empty()) return out;
    pqxx::result r = Pq(tx).exec_params(
        "SELECT ru.release_id::text AS release_id, ru.unit_slug, ru.file_name, v.data,"
        " (v.unit_id IS NOT NULL) AS found FROM release_units ru"
        " LEFT JOIN revisions v ON v.unit_id = ru.unit_id AND v.revision_num = ru.revision_num"
        " WHERE ru.release_id = ANY($1::uuid[])",
        TextArrayLiteral(release_ids));
    for (const auto& row : r) {
      StoredFiles& f = out[row["release_id"].as<std::string>()];
      const std::string slug = row["unit_slug"].as<std::string>();
      if (row["found"].as<bool>()) f.data[slug] = row["data"].as<std::string>();
      if (!row["file_name"].is_null()) f.file_names[slug] = row["file_name"].as<std::string>();
    }
    return out;
  });
}

}  // namespace cub::store
