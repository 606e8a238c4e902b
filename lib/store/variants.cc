#include "lib/store/variants.h"

#include <algorithm>

#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"

namespace cub::store {

absl::StatusOr<std::vector<std::string>> TakenSpaceRefs(Tx& tx,
                                                        const std::vector<std::string>& refs) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    // Two index lookups rather than `slug = ref OR id::text = ref`, which scans every Space; a
    // ref only matches an ID when written as PostgreSQL prints one (lower case), so only such
    // refs are cast.
    pqxx::result r = Pq(tx).exec_params(
        "SELECT v.ref FROM unnest($1::text[]) AS v(ref) JOIN spaces s ON s.slug = v.ref"
        " UNION SELECT v.ref FROM unnest($1::text[]) AS v(ref) JOIN spaces s ON s.id ="
        " (CASE WHEN v.ref ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'"
        " THEN v.ref::uuid END)",
        TextArrayLiteral(refs));
    std::vector<std::string> out;
    out.reserve(r.size());
    for (const auto& row : r) out.push_back(row[0].as<std::string>());
    std::sort(out.begin(), out.end());  // bytewise, whatever the database's collation
    return out;
  });
}

absl::StatusOr<std::vector<std::string>> InsertVariantSpaces(Tx& tx, const NewVariants& v) {
  return Guard([&]() -> absl::StatusOr<std::vector<std::string>> {
    // RETURNING gives no order, so the ordinality comes back with each ID.
    pqxx::result r = Pq(tx).exec_params(
        "WITH want AS (SELECT slug, i FROM unnest($1::text[]) WITH ORDINALITY AS w(slug, i)),"
        " ins AS (INSERT INTO spaces (slug, display_name, labels, annotations, component_id,"
        " upstream_space_id) SELECT want.slug, '', $2::jsonb, '{}'::jsonb, NULLIF($3, '')::uuid,"
        " NULLIF($4, '')::uuid FROM want ORDER BY want.i RETURNING id, slug)"
        " SELECT ins.id FROM ins JOIN want ON want.slug = ins.slug ORDER BY want.i",
        TextArrayLiteral(v.slugs), JsonText(v.labels), v.component_id, v.upstream_space_id);
    std::vector<std::string> ids;
    ids.reserve(r.size());
    for (const auto& row : r) ids.push_back(row[0].as<std::string>());
    if (ids.size() != v.slugs.size()) {
      return absl::InternalError("inserted Spaces do not match the slugs asked for");
    }
    return ids;
  });
}

absl::Status CarryOverGrants(Tx& tx, const std::string& from_space_id,
                             const std::vector<std::string>& to_space_ids, const std::string& role,
                             const std::string& user_id) {
  return Guard([&]() -> absl::Status {
    const std::string ids = TextArrayLiteral(to_space_ids);
    Pq(tx).exec_params(
        "INSERT INTO space_permissions (space_id, role, user_id, group_name)"
        " SELECT v.id, p.role, p.user_id, p.group_name FROM unnest($2::uuid[]) AS v(id)"
        " CROSS JOIN space_permissions p WHERE p.space_id = $1::uuid ON CONFLICT DO NOTHING",
        from_space_id, ids);
    Pq(tx).exec_params(
        "INSERT INTO space_permissions (space_id, role, user_id, group_name)"
        " SELECT v.id, $2, NULLIF($3, '')::uuid, NULL FROM unnest($1::uuid[]) AS v(id)"
        " ON CONFLICT DO NOTHING",
        ids, role, user_id);
    return absl::OkStatus();
  });
}

absl::StatusOr<int64_t> CloneUnits(Tx& tx, const std::string& upstream_space_id,
                                   const std::vector<std::string>& space_ids,
                                   const std::string& author_id, const std::string& description) {
  return Guard([&]() -> absl::StatusOr<int64_t> {
    const std::string ids = TextArrayLiteral(space_ids);
    pqxx::result units = Pq(tx).exec_params(
        "INSERT INTO units (space_id, slug, toolchain_type, labels, annotations,"
        " head_revision_num, upstream_unit_id)"
        " SELECT v.id, u.slug, u.toolchain_type, u.labels, u.annotations, 1, u.id"
        " FROM unnest($2::uuid[]) AS v(id) CROSS JOIN units u"
        " WHERE u.space_id = $1::uuid AND u.head_revision_num > 0",
        upstream_space_id, ids);
    Pq(tx).exec_params(
        "INSERT INTO revisions (unit_id, space_id, revision_num, data, data_hash, author_id,"
        " description, upstream_unit_id, upstream_revision_num)"
        " SELECT nu.id, nu.space_id, 1, r.data, r.data_hash, NULLIF($2, '')::uuid, $3, uu.id,"
        " uu.head_revision_num FROM unnest($1::uuid[]) AS v(id) JOIN units nu ON nu.space_id = v.id"
        " JOIN units uu ON uu.id = nu.upstream_unit_id"
        " JOIN revisions r ON r.unit_id = uu.id AND r.revision_num = uu.head_revision_num",
        ids, author_id, description);
    Pq(tx).exec_params(
        "INSERT INTO links (space_id, slug, from_unit_id, to_unit_id, update_type,"
        " upstream_revision_num)"
        " SELECT nu.space_id, nu.slug || '-upstream', nu.id, uu.id, 'UpgradeUnit',"
        " uu.head_revision_num FROM unnest($1::uuid[]) AS v(id) JOIN units nu ON nu.space_id = v.id"
        " JOIN units uu ON uu.id = nu.upstream_unit_id",
        ids);
    return static_cast<int64_t>(units.affected_rows());
  });
}

}  // namespace cub::store
