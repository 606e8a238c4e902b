#include "lib/store/releases.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"

namespace cub::store {
namespace {

const std::string kTargetSelect =
    absl::StrCat("SELECT t.id, t.space_id, s.slug, t.slug, t.provider, ", MapAsArray("t.params"),
                 ", ", Rfc3339("t.created_at"), ", ", Rfc3339("t.updated_at"),
                 ", t.version FROM targets t JOIN spaces s ON s.id = t.space_id WHERE TRUE");

v1::Target ReadTarget(const pqxx::row& r) {
  v1::Target t;
  t.set_target_id(r[0].as<std::string>());
  t.set_space_id(r[1].as<std::string>());
  t.set_space_slug(r[2].as<std::string>());
  t.set_slug(r[3].as<std::string>());
  t.set_provider(r[4].as<std::string>());
  FillMap(ReadMap(r[5]), t.mutable_params());
  t.set_created_at(r[6].as<std::string>());
  t.set_updated_at(r[7].as<std::string>());
  t.set_version(r[8].as<int64_t>());
  return t;
}

// The Space and Target names are the Release's own copies, so that it reads the same after
// they are deleted.
const std::string kReleaseSelect = absl::StrCat(
    "SELECT r.id, r.space_id, r.space_slug, r.target, r.release_num,"
    " coalesce(r.change_order_id::text, ''), r.change_order, r.revision_selector, r.description,"
    " r.bundle_digest, coalesce(u.username, ''), ",
    Rfc3339("r.published_at"),
    ", r.location, r.commit_id, r.sync_status, r.health_status, r.operation_state,"
    " r.status_message, coalesce(",
    Rfc3339("r.status_at"),
    ", ''), r.provenance, r.sealed_approvals"
    " FROM releases r LEFT JOIN users u ON u.id = r.published_by WHERE TRUE");

v1::Release ReadRelease(const pqxx::row& r) {
  v1::Release v;
  v.set_release_id(r[0].as<std::string>());
  v.set_space_id(r[1].as<std::string>());
  v.set_space_slug(r[2].as<std::string>());
  v.set_target(r[3].as<std::string>());
  v.set_release_num(r[4].as<int64_t>());
  v.set_change_order_id(r[5].as<std::string>());
  v.set_change_order(r[6].as<std::string>());
  v.set_revision_selector(r[7].as<std::string>());
  v.set_description(r[8].as<std::string>());
  v.set_bundle_digest(r[9].as<std::string>());
  v.set_published_by(r[10].as<std::string>());
  v.set_published_at(r[11].as<std::string>());
  v.set_location(r[12].as<std::string>());
  v.set_commit(r[13].as<std::string>());
  v1::LiveStatus* live = v.mutable_live_status();
  live->set_sync(r[14].as<std::string>());
  live->set_health(r[15].as<std::string>());
  live->set_operation(r[16].as<std::string>());
  live->set_message(r[17].as<std::string>());
  live->set_reported_at(r[18].as<std::string>());
  v.set_provenance(r[19].as<std::string>());
  v.set_sealed_approvals(r[20].as<std::string>());
  return v;
}

// Reads releases and fills in their Units with one more query.
std::vector<v1::Release> ReadReleases(Tx& tx, const pqxx::result& rows) {
  std::vector<v1::Release> out;
  std::vector<std::string> ids;
  for (const auto& row : rows) {
    out.push_back(ReadRelease(row));
    ids.push_back(out.back().release_id());
  }
  if (ids.empty()) return out;
  pqxx::result units = Pq(tx).exec_params(
      "SELECT release_id::text, unit_id::text, unit_slug, revision_num, data_hash"
      " FROM release_units WHERE release_id = ANY($1::uuid[]) ORDER BY unit_slug",
      TextArrayLiteral(ids));
  std::map<std::string, v1::Release*> by_id;
  for (auto& r : out) by_id[r.release_id()] = &r;
  for (const auto& row : units) {
    v1::ReleaseUnit* u = by_id[row[0].as<std::string>()]->add_units();
    u->set_unit_id(row[1].as<std::string>());
    u->set_unit(row[2].as<std::string>());
    u->set_revision_num(row[3].as<int64_t>());
    u->set_data_hash(row[4].as<std::string>());
  }
  return out;
}

std::optional<v1::Release> First(Tx& tx, const Query& q) {
  auto all = ReadReleases(tx, q.Exec(tx));
  if (all.empty()) return std::nullopt;
  return all[0];
}

}  // namespace

v1::Target InsertTarget(Tx& tx, const NewTarget& t) {
  pqxx::row r = Pq(tx).exec_params1(
      "INSERT INTO targets (space_id, slug, provider, params) VALUES ($1::uuid, $2, $3, $4::jsonb)"
      " RETURNING id",
      t.space_id, t.slug, t.provider, JsonText(t.params));
  return *FindTargetByID(tx, r[0].as<std::string>());
}

std::optional<v1::Target> FindTarget(Tx& tx, const std::string& space_id, const std::string& ref) {
  Query q(kTargetSelect);
  std::string p = q.Param(ref);
  q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid AND (t.slug = ", p,
                        " OR t.id::text = ", p, ")"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadTarget(r[0]);
}

std::optional<v1::Target> FindTargetByID(Tx& tx, const std::string& id) {
  Query q(kTargetSelect);
  q.Append(absl::StrCat(" AND t.id = ", q.Param(id), "::uuid"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return ReadTarget(r[0]);
}

std::vector<v1::Target> ListTargets(Tx& tx, const std::string& space_id) {
  Query q(kTargetSelect);
  q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid ORDER BY t.slug"));
  std::vector<v1::Target> out;
  for (const auto& row : q.Exec(tx)) out.push_back(ReadTarget(row));
  return out;
}

v1::Target UpdateTargetParams(Tx& tx, const std::string& id,
                              const std::map<std::string, std::string>& params) {
  Query q("UPDATE targets SET updated_at = now(), version = version + 1, params = ");
  q.Append(MergeMapExpr(q, "params", params));
  q.Append(absl::StrCat(" WHERE id = ", q.Param(id), "::uuid"));
  q.Exec(tx);
  return *FindTargetByID(tx, id);
}

absl::Status DeleteTarget(Tx& tx, const v1::Target& t) {
  pqxx::result users = Pq(tx).exec_params(
      "SELECT slug FROM spaces WHERE release_target_id = $1::uuid ORDER BY slug", t.target_id());
  pqxx::result released =
      Pq(tx).exec_params("SELECT count(*) FROM releases WHERE target_id = $1::uuid", t.target_id());
  if (!users.empty()) {
    std::vector<std::string> names;
    for (const auto& row : users) names.push_back(row[0].as<std::string>());
    return absl::FailedPreconditionError(absl::StrCat(
        "target '", t.slug(), "' is the release target of space(s) ", absl::StrJoin(names, ", ")));
  }
  if (released[0][0].as<int64_t>() > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("target '", t.slug(), "' has releases on record, which keep it"));
  }
  Pq(tx).exec_params("DELETE FROM targets WHERE id = $1::uuid", t.target_id());
  return absl::OkStatus();
}

int64_t LockNextReleaseNum(Tx& tx, const std::string& target_id) {
  Pq(tx).exec_params("SELECT 1 FROM targets WHERE id = $1::uuid FOR UPDATE", target_id);
  return Pq(tx)
      .exec_params1(
          "SELECT coalesce(max(release_num), 0) + 1 FROM releases WHERE target_id = $1::uuid",
          target_id)[0]
      .as<int64_t>();
}

std::string InsertRelease(Tx& tx, const NewRelease& r) {
  pqxx::row row = Pq(tx).exec_params1(
      "INSERT INTO releases (space_id, space_slug, target_id, target, release_num,"
      " change_order_id, change_order, revision_selector, description, bundle_digest,"
      " published_by, published_at, provenance, sealed_approvals)"
      " VALUES ($1::uuid, $2, $3::uuid, $4, $5::bigint, NULLIF($6, '')::uuid, $7, $8, $9, $10,"
      " NULLIF($11, '')::uuid, $12::timestamptz, $13, $14) RETURNING id",
      r.space_id, r.space_slug, r.target_id, r.target, r.release_num, r.change_order_id,
      r.change_order, r.revision_selector, r.description, r.bundle_digest, r.published_by,
      r.published_at, r.provenance, r.sealed_approvals);
  std::string id = row[0].as<std::string>();
  std::vector<std::string> unit_ids, slugs, nums, hashes;
  for (const auto& u : r.units) {
    unit_ids.push_back(u.unit_id());
    slugs.push_back(u.unit());
    nums.push_back(std::to_string(u.revision_num()));
    hashes.push_back(u.data_hash());
  }
  Pq(tx).exec_params(
      "INSERT INTO release_units (release_id, unit_id, unit_slug, revision_num, data_hash)"
      " SELECT $1::uuid, * FROM unnest($2::uuid[], $3::text[], $4::bigint[], $5::text[])",
      id, TextArrayLiteral(unit_ids), TextArrayLiteral(slugs), TextArrayLiteral(nums),
      TextArrayLiteral(hashes));
  Pq(tx).exec_params(
      "UPDATE units u SET last_released_revision_num = v.n, updated_at = now()"
      " FROM unnest($1::uuid[], $2::bigint[]) AS v(id, n) WHERE u.id = v.id",
      TextArrayLiteral(unit_ids), TextArrayLiteral(nums));
  Pq(tx).exec_params(
      "UPDATE deployments SET ended_at = now(), end_reason = 'Superseded'"
      " WHERE space_id = $1::uuid AND ended_at IS NULL",
      r.space_id);
  Pq(tx).exec_params("INSERT INTO deployments (space_id, release_id) VALUES ($1::uuid, $2::uuid)",
                     r.space_id, id);
  return id;
}

void SetReleaseDelivery(Tx& tx, const std::string& release_id, const std::string& location,
                        const std::string& commit) {
  Pq(tx).exec_params("SELECT cub_set_release_delivery($1::uuid, $2, $3)", release_id, location,
                     commit);
}

std::optional<v1::Release> FindRelease(Tx& tx, const std::string& space_id, int64_t num) {
  Query q(kReleaseSelect);
  q.Append(absl::StrCat(" AND r.space_id = ", q.Param(space_id),
                        "::uuid AND r.release_num = ", q.Param(std::to_string(num)), "::bigint",
                        " ORDER BY r.published_at DESC LIMIT 1"));
  return First(tx, q);
}

std::optional<v1::Release> FindReleaseByDigest(Tx& tx, const std::string& space_id,
                                               const std::string& digest) {
  Query q(kReleaseSelect);
  q.Append(absl::StrCat(" AND r.space_id = ", q.Param(space_id),
                        "::uuid AND r.bundle_digest = ", q.Param(digest),
                        " ORDER BY r.published_at DESC, r.release_num DESC LIMIT 1"));
  return First(tx, q);
}

std::optional<v1::Release> FindReleaseByID(Tx& tx, const std::string& release_id) {
  Query q(kReleaseSelect);
  q.Append(absl::StrCat(" AND r.id = ", q.Param(release_id), "::uuid"));
  return First(tx, q);
}

std::vector<v1::Release> ListReleases(Tx& tx, const std::string& space_id) {
  Query q(kReleaseSelect);
  q.Append(absl::StrCat(" AND r.space_id = ", q.Param(space_id),
                        "::uuid ORDER BY r.published_at DESC, r.release_num DESC"));
  return ReadReleases(tx, q.Exec(tx));
}

std::vector<std::pair<std::string, std::string>> DeletedSpacesWithReleases(
    Tx& tx, const std::string& slug_or_id) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT DISTINCT r.space_id::text, r.space_slug FROM releases r"
      " WHERE (r.space_id::text = $1 OR r.space_slug = $1)"
      " AND NOT EXISTS (SELECT 1 FROM spaces s WHERE s.id = r.space_id) ORDER BY 1",
      slug_or_id);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& row : r) out.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
  return out;
}

std::map<std::string, std::string> ReleaseData(Tx& tx, const std::string& release_id) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT ru.unit_slug, v.data FROM release_units ru"
      " JOIN revisions v ON v.unit_id = ru.unit_id AND v.revision_num = ru.revision_num"
      " WHERE ru.release_id = $1::uuid",
      release_id);
  std::map<std::string, std::string> out;
  for (const auto& row : r) out[row[0].as<std::string>()] = row[1].as<std::string>();
  return out;
}

bool SetReleaseStatus(Tx& tx, const v1::Release& release, const StatusReport& s) {
  Pq(tx).exec_params("SELECT cub_set_release_status($1::uuid, $2, $3, $4, $5)",
                     release.release_id(), s.sync, s.health, s.operation, s.message);
  // The Space's current deployment, if it is this Release's.
  pqxx::result cur = Pq(tx).exec_params(
      "SELECT id, healthy_at IS NOT NULL FROM deployments WHERE space_id = $1::uuid"
      " AND release_id = $2::uuid ORDER BY started_at DESC LIMIT 1",
      release.space_id(), release.release_id());
  pqxx::result open = Pq(tx).exec_params(
      "SELECT id FROM deployments WHERE space_id = $1::uuid AND ended_at IS NULL",
      release.space_id());
  bool is_current =
      !cur.empty() && !open.empty() && open[0][0].as<std::string>() == cur[0][0].as<std::string>();
  const bool healthy = s.sync == "Synced" && s.health == "Healthy" && s.operation != "Running" &&
                       s.operation != "Failed";
  if (s.health == "Degraded" && is_current) {
    Pq(tx).exec_params(
        "UPDATE deployments SET ended_at = now(), end_reason = 'Degraded' WHERE id = $1::uuid",
        cur[0][0].as<std::string>());
    return false;
  }
  if (!healthy || cur.empty()) return false;
  if (is_current) {
    if (cur[0][1].as<bool>()) return false;
    Pq(tx).exec_params("UPDATE deployments SET healthy_at = now() WHERE id = $1::uuid",
                       cur[0][0].as<std::string>());
    return true;
  }
  // A recovery: this Release's entry ended Degraded, and no newer Release has been published.
  pqxx::result newer = Pq(tx).exec_params(
      "SELECT 1 FROM deployments d JOIN deployments mine ON mine.id = $1::uuid"
      " WHERE d.space_id = mine.space_id AND d.started_at > mine.started_at"
      " AND d.release_id <> mine.release_id",
      cur[0][0].as<std::string>());
  if (!newer.empty() || !open.empty()) return false;
  Pq(tx).exec_params(
      "INSERT INTO deployments (space_id, release_id, healthy_at) VALUES ($1::uuid, $2::uuid,"
      " now())",
      release.space_id(), release.release_id());
  return true;
}

void SetDeploymentRecord(Tx& tx, const std::string& release_id, const std::string& record) {
  Pq(tx).exec_params(
      "UPDATE deployments SET record = $2 WHERE id = (SELECT id FROM deployments"
      " WHERE release_id = $1::uuid ORDER BY started_at DESC LIMIT 1)",
      release_id, record);
}

std::vector<v1::Deployment> DeploymentHistory(Tx& tx, const std::string& space_id) {
  pqxx::result r = Pq(tx).exec_params(
      absl::StrCat("SELECT rl.release_num, rl.bundle_digest, rl.change_order, ",
                   Rfc3339("d.started_at"), ", coalesce(", Rfc3339("d.healthy_at"),
                   ", ''), coalesce(", Rfc3339("d.ended_at"),
                   ", ''), d.end_reason, d.record FROM deployments d"
                   " JOIN releases rl ON rl.id = d.release_id WHERE d.space_id = $1::uuid"
                   " ORDER BY d.started_at DESC LIMIT 16"),
      space_id);
  std::vector<v1::Deployment> out;
  for (const auto& row : r) {
    v1::Deployment d;
    d.set_release_num(row[0].as<int64_t>());
    d.set_bundle_digest(row[1].as<std::string>());
    d.set_change_order(row[2].as<std::string>());
    d.set_started_at(row[3].as<std::string>());
    d.set_healthy_at(row[4].as<std::string>());
    d.set_ended_at(row[5].as<std::string>());
    d.set_end_reason(row[6].as<std::string>());
    d.set_record(row[7].as<std::string>());
    out.push_back(std::move(d));
  }
  return out;
}

std::set<std::string> SpacesReleasing(Tx& tx, const std::string& start_tag_id,
                                      const std::string& publish_tag_id,
                                      const std::vector<std::string>& space_ids, bool latest_only) {
  pqxx::result r = Pq(tx).exec_params(
      "WITH cand AS ("
      "  SELECT r.id, r.space_id, r.sync_status, r.health_status, r.operation_state,"
      "  row_number() OVER (PARTITION BY r.space_id"
      "                     ORDER BY r.published_at DESC, r.release_num DESC) AS rn"
      "  FROM releases r WHERE r.space_id = ANY($3::uuid[]))"
      " SELECT DISTINCT c.space_id::text FROM cand c"
      " WHERE (NOT $4 OR (c.rn = 1 AND c.sync_status = 'Synced' AND c.health_status = 'Healthy'"
      "                   AND c.operation_state NOT IN ('Running', 'Failed')))"
      // Only a Space that has taken the change can have released it.
      " AND EXISTS (SELECT 1 FROM tag_marks tm JOIN units tu ON tu.id = tm.unit_id"
      "             WHERE tm.tag_id = $2::uuid AND tu.space_id = c.space_id)"
      " AND NOT EXISTS ("
      "  SELECT 1 FROM tag_marks mp JOIN units u ON u.id = mp.unit_id"
      "  LEFT JOIN tag_marks ms ON ms.tag_id = $1::uuid AND ms.unit_id = u.id"
      "  LEFT JOIN release_units ru ON ru.release_id = c.id AND ru.unit_id = u.id"
      "  WHERE mp.tag_id = $2::uuid AND u.space_id = c.space_id"
      "  AND ms.revision_num IS DISTINCT FROM mp.revision_num"
      "  AND (ru.revision_num IS NULL OR ru.revision_num < mp.revision_num))",
      start_tag_id, publish_tag_id, TextArrayLiteral(space_ids), latest_only);
  std::set<std::string> out;
  for (const auto& row : r) out.insert(row[0].as<std::string>());
  return out;
}

bool ChangeOrderReleasedIn(Tx& tx, const std::string& space_id, const std::string& co_id) {
  return !Pq(tx)
              .exec_params(
                  "SELECT 1 FROM releases WHERE space_id = $1::uuid"
                  " AND change_order_id = $2::uuid LIMIT 1",
                  space_id, co_id)
              .empty();
}

std::set<std::string> SpacesWithTarget(Tx& tx, const std::vector<std::string>& space_ids) {
  pqxx::result r = Pq(tx).exec_params(
      "SELECT id::text FROM spaces WHERE id = ANY($1::uuid[]) AND release_target_id IS NOT NULL",
      TextArrayLiteral(space_ids));
  std::set<std::string> out;
  for (const auto& row : r) out.insert(row[0].as<std::string>());
  return out;
}

}  // namespace cub::store
