#include "lib/store/releases.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/pq.h"
#include "lib/store/release_sql.h"
#include "lib/store/scans.h"
#include "lib/store/sql.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

// Advisory locks numbering a Space's Releases (the first key; the second is a hash of the
// Space's ID). Two Spaces sharing a hash only take turns, which is harmless.
constexpr int kReleaseNumLockSpace = 0x63756272;  // "cubr"

const std::string kTargetSelect = absl::StrCat(
    "SELECT t.id AS target_id, t.space_id, s.slug AS space_slug, t.slug, t.provider, ",
    MapAsArray("t.params"), " AS params, ", Rfc3339("t.created_at"), " AS created_at, ",
    Rfc3339("t.updated_at"),
    " AS updated_at, t.version FROM targets t JOIN spaces s ON s.id = t.space_id WHERE TRUE");

v1::Target TargetFromRow(const pqxx::row& r) {
  v1::Target t;
  t.set_target_id(r["target_id"].as<std::string>());
  t.set_space_id(r["space_id"].as<std::string>());
  t.set_space_slug(r["space_slug"].as<std::string>());
  t.set_slug(r["slug"].as<std::string>());
  t.set_provider(r["provider"].as<std::string>());
  FillMap(ReadMap(r["params"]), t.mutable_params());
  t.set_created_at(r["created_at"].as<std::string>());
  t.set_updated_at(r["updated_at"].as<std::string>());
  t.set_version(r["version"].as<int64_t>());
  return t;
}

// The Space and Target names are the Release's own copies, so that it reads the same after
// they are deleted. `signed_columns` reads the provenance and sealed approvals, or stands in
// for them (a brief read).
std::string ReleaseSelect(const std::string& signed_columns) {
  return absl::StrCat(
      "SELECT r.id AS release_id, r.space_id, r.space_slug, r.target, r.release_num,"
      " coalesce(r.change_order_id::text, '') AS change_order_id, r.change_order,"
      " r.revision_selector, r.description, r.bundle_digest,"
      " coalesce(u.username, '') AS published_by, ",
      Rfc3339("r.published_at"),
      " AS published_at, r.location, r.commit_id, r.sync_status, r.health_status,"
      " r.operation_state, r.status_message, coalesce(",
      Rfc3339("r.status_at"), ", '') AS status_at, ", signed_columns,
      ", r.delivery_state,"
      " r.delivery_attempts, r.delivery_error, coalesce(",
      Rfc3339("r.delivered_at"), ", '') AS delivered_at, coalesce(", Rfc3339("r.next_delivery_at"),
      ", '') AS next_delivery_at, coalesce(ra.digest, '') AS artifact_digest,"
      " coalesce(ra.ref, '') AS artifact_ref"
      " FROM releases r LEFT JOIN users u ON u.id = r.published_by"
      " LEFT JOIN release_artifacts ra ON ra.release_id = r.id WHERE TRUE");
}

const std::string kReleaseSelect = ReleaseSelect("r.provenance, r.sealed_approvals");
// The signed statements run to kilobytes a Release; a brief read leaves them (and the Units)
// out rather than reading and dropping them.
const std::string kBriefReleaseSelect = ReleaseSelect("'' AS provenance, '' AS sealed_approvals");

v1::Release ReleaseFromRow(const pqxx::row& r) {
  v1::Release v;
  v.set_release_id(r["release_id"].as<std::string>());
  v.set_space_id(r["space_id"].as<std::string>());
  v.set_space_slug(r["space_slug"].as<std::string>());
  v.set_target(r["target"].as<std::string>());
  v.set_release_num(r["release_num"].as<int64_t>());
  v.set_change_order_id(r["change_order_id"].as<std::string>());
  v.set_change_order(r["change_order"].as<std::string>());
  v.set_revision_selector(r["revision_selector"].as<std::string>());
  v.set_description(r["description"].as<std::string>());
  v.set_bundle_digest(r["bundle_digest"].as<std::string>());
  v.set_published_by(r["published_by"].as<std::string>());
  v.set_published_at(r["published_at"].as<std::string>());
  v.set_location(r["location"].as<std::string>());
  v.set_commit(r["commit_id"].as<std::string>());
  v1::LiveStatus* live = v.mutable_live_status();
  live->set_sync(r["sync_status"].as<std::string>());
  live->set_health(r["health_status"].as<std::string>());
  live->set_operation(r["operation_state"].as<std::string>());
  live->set_message(r["status_message"].as<std::string>());
  live->set_reported_at(r["status_at"].as<std::string>());
  v.set_provenance(r["provenance"].as<std::string>());
  v.set_sealed_approvals(r["sealed_approvals"].as<std::string>());
  v.set_delivery_state(r["delivery_state"].as<std::string>());
  v.set_delivery_attempts(r["delivery_attempts"].as<int32_t>());
  v.set_delivery_error(r["delivery_error"].as<std::string>());
  v.set_delivered_at(r["delivered_at"].as<std::string>());
  v.set_next_delivery_at(r["next_delivery_at"].as<std::string>());
  v.set_artifact_digest(r["artifact_digest"].as<std::string>());
  v.set_artifact_ref(r["artifact_ref"].as<std::string>());
  return v;
}

constexpr std::string_view kReleaseUnits =
    "SELECT release_id::text AS release_id, unit_id::text AS unit_id, unit_slug, revision_num,"
    " data_hash FROM release_units WHERE release_id = ANY($1::uuid[]) ORDER BY unit_slug";

// Reads releases and, unless brief, fills in their Units with one more query.
std::vector<v1::Release> ReadReleases(Tx& tx, const pqxx::result& rows,
                                      ReleaseRead read = ReleaseRead::kWhole) {
  std::vector<v1::Release> out;
  std::vector<std::string> ids;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    out.push_back(ReleaseFromRow(row));
    ids.push_back(out.back().release_id());
  }
  if (ids.empty()) return out;
  if (read == ReleaseRead::kBrief) {
    internal::FillScans(tx, out);
    return out;
  }
  pqxx::result units = Pq(tx).exec_params(std::string(kReleaseUnits), TextArrayLiteral(ids));
  std::map<std::string, v1::Release*> by_id;
  for (auto& r : out) by_id[r.release_id()] = &r;
  for (const auto& row : units) {
    v1::ReleaseUnit* u = by_id[row["release_id"].as<std::string>()]->add_units();
    u->set_unit_id(row["unit_id"].as<std::string>());
    u->set_unit(row["unit_slug"].as<std::string>());
    u->set_revision_num(row["revision_num"].as<int64_t>());
    u->set_data_hash(row["data_hash"].as<std::string>());
  }
  internal::FillScans(tx, out);
  return out;
}

std::optional<v1::Release> First(Tx& tx, const Query& q) {
  auto all = ReadReleases(tx, q.Exec(tx));
  if (all.empty()) return std::nullopt;
  return all[0];
}

std::optional<v1::Target> TargetByID(Tx& tx, const std::string& id) {
  Query q(kTargetSelect);
  q.Append(absl::StrCat(" AND t.id = ", q.Param(id), "::uuid"));
  pqxx::result r = q.Exec(tx);
  if (r.empty()) return std::nullopt;
  return TargetFromRow(r[0]);
}

// A Target just written, read back: it must be there.
absl::StatusOr<v1::Target> WrittenTarget(Tx& tx, const std::string& id) {
  auto t = TargetByID(tx, id);
  if (!t) return absl::NotFoundError(absl::StrCat("no target has the ID ", id));
  return *std::move(t);
}

}  // namespace

absl::StatusOr<v1::Target> InsertTarget(Tx& tx, const NewTarget& t) {
  return Guard([&]() -> absl::StatusOr<v1::Target> {
    pqxx::row r = Pq(tx).exec_params1(
        "INSERT INTO targets (space_id, slug, provider, params)"
        " VALUES ($1::uuid, $2, $3, $4::jsonb) RETURNING id::text AS id",
        t.space_id, t.slug, t.provider, JsonText(t.params));
    return WrittenTarget(tx, r["id"].as<std::string>());
  });
}

absl::StatusOr<std::optional<v1::Target>> FindTarget(Tx& tx, const std::string& space_id,
                                                     const std::string& ref) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Target>> {
    Query q(kTargetSelect);
    std::string p = q.Param(ref);
    q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid AND (t.slug = ", p,
                          " OR t.id::text = ", p, ")"));
    pqxx::result r = q.Exec(tx);
    if (r.empty()) return std::nullopt;
    return TargetFromRow(r[0]);
  });
}

absl::StatusOr<std::optional<v1::Target>> FindTargetByID(Tx& tx, const std::string& id) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Target>> { return TargetByID(tx, id); });
}

absl::StatusOr<std::vector<v1::Target>> ListTargets(Tx& tx, const std::string& space_id,
                                                    const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Target>> {
    Query q(kTargetSelect);
    q.Append(absl::StrCat(" AND t.space_id = ", q.Param(space_id), "::uuid"));
    AndAfterKey(q, page, "t.slug", {"text"});
    OrderAndLimit(q, page, "t.slug");
    std::vector<v1::Target> out;
    for (const auto& row : q.Exec(tx)) out.push_back(TargetFromRow(row));
    return out;
  });
}

absl::StatusOr<v1::Target> UpdateTargetParams(Tx& tx, const std::string& id,
                                              const std::map<std::string, std::string>& params) {
  return Guard([&]() -> absl::StatusOr<v1::Target> {
    Query q("UPDATE targets SET updated_at = now(), version = version + 1, params = ");
    q.Append(MergeMapExpr(q, "params", params));
    q.Append(absl::StrCat(" WHERE id = ", q.Param(id), "::uuid"));
    q.Exec(tx);
    return WrittenTarget(tx, id);
  });
}

absl::Status DeleteTarget(Tx& tx, const v1::Target& t) {
  return Guard([&]() -> absl::Status {
    pqxx::result users = Pq(tx).exec_params(
        "SELECT slug FROM spaces WHERE release_target_id = $1::uuid ORDER BY slug", t.target_id());
    pqxx::row released = Pq(tx).exec_params1(
        "SELECT count(*) AS releases FROM releases WHERE target_id = $1::uuid", t.target_id());
    if (!users.empty()) {
      std::vector<std::string> names;
      for (const auto& row : users) names.push_back(row["slug"].as<std::string>());
      return absl::FailedPreconditionError(absl::StrCat("target '", t.slug(),
                                                        "' is the release target of space(s) ",
                                                        absl::StrJoin(names, ", ")));
    }
    if (released["releases"].as<int64_t>() > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("target '", t.slug(), "' has releases on record, which keep it"));
    }
    Pq(tx).exec_params("DELETE FROM targets WHERE id = $1::uuid", t.target_id());
    return absl::OkStatus();
  });
}

absl::StatusOr<std::map<std::string, int64_t>> LockNextReleaseNums(
    Tx& tx, std::vector<std::string> space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, int64_t>> {
    // In one order for every caller, so two publishes of overlapping Spaces cannot deadlock.
    std::sort(space_ids.begin(), space_ids.end());
    space_ids.erase(std::unique(space_ids.begin(), space_ids.end()), space_ids.end());
    std::map<std::string, int64_t> out;
    if (space_ids.empty()) return out;
    const std::string ids = TextArrayLiteral(space_ids);
    Pq(tx).exec_params(
        "SELECT pg_advisory_xact_lock($1, hashtext(s::text))"
        " FROM unnest($2::uuid[]) WITH ORDINALITY AS v(s, i) ORDER BY i",
        kReleaseNumLockSpace, ids);
    for (const auto& id : space_ids) out[id] = 1;
    pqxx::result r = Pq(tx).exec_params(
        "SELECT space_id::text AS space_id, max(release_num) + 1 AS next FROM releases"
        " WHERE space_id = ANY($1::uuid[]) GROUP BY space_id",
        ids);
    for (const auto& row : r) out[row["space_id"].as<std::string>()] = row["next"].as<int64_t>();
    return out;
  });
}

absl::StatusOr<int64_t> LockNextReleaseNum(Tx& tx, const std::string& space_id) {
  CUB_ASSIGN_OR_RETURN(auto nums, LockNextReleaseNums(tx, {space_id}));
  return nums.at(space_id);
}

absl::StatusOr<std::string> InsertRelease(Tx& tx, const NewRelease& r) {
  return Guard([&]() -> absl::StatusOr<std::string> {
    pqxx::row row = Pq(tx).exec_params1(
        "INSERT INTO releases (space_id, space_slug, target_id, target, release_num,"
        " change_order_id, change_order, revision_selector, description, bundle_digest,"
        " published_by, published_at, provenance, sealed_approvals)"
        " VALUES ($1::uuid, $2, $3::uuid, $4, $5::bigint, NULLIF($6, '')::uuid, $7, $8, $9, $10,"
        " NULLIF($11, '')::uuid, $12::timestamptz, $13, $14) RETURNING id::text AS id",
        r.space_id, r.space_slug, r.target_id, r.target, r.release_num, r.change_order_id,
        r.change_order, r.revision_selector, r.description, r.bundle_digest, r.published_by,
        r.published_at, r.provenance, r.sealed_approvals);
    std::string id = row["id"].as<std::string>();
    // Delivery workers wake at commit (lib/ops/delivery.h).
    Pq(tx).exec0("NOTIFY cub_delivery");
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
  });
}

absl::Status SetReleaseDelivery(Tx& tx, const std::string& release_id, const std::string& location,
                                const std::string& commit) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("SELECT cub_set_release_delivery($1::uuid, $2, $3)", release_id, location,
                       commit);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<v1::Release>> FindRelease(Tx& tx, const std::string& space_id,
                                                       int64_t num) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Release>> {
    Query q(kReleaseSelect);
    q.Append(absl::StrCat(" AND r.space_id = ", q.Param(space_id),
                          "::uuid AND r.release_num = ", q.Param(std::to_string(num)), "::bigint",
                          " ORDER BY r.published_at DESC LIMIT 1"));
    return First(tx, q);
  });
}

absl::StatusOr<std::optional<v1::Release>> FindReleaseByDigest(Tx& tx, const std::string& space_id,
                                                               const std::string& digest) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Release>> {
    Query q(kReleaseSelect);
    q.Append(absl::StrCat(" AND r.space_id = ", q.Param(space_id),
                          "::uuid AND r.bundle_digest = ", q.Param(digest),
                          " ORDER BY r.published_at DESC, r.release_num DESC LIMIT 1"));
    return First(tx, q);
  });
}

absl::StatusOr<std::optional<v1::Release>> FindReleaseByID(Tx& tx, const std::string& release_id) {
  return Guard([&]() -> absl::StatusOr<std::optional<v1::Release>> {
    Query q(kReleaseSelect);
    q.Append(absl::StrCat(" AND r.id = ", q.Param(release_id), "::uuid"));
    return First(tx, q);
  });
}

absl::StatusOr<std::vector<v1::Release>> FindReleasesByID(Tx& tx,
                                                          const std::vector<std::string>& ids,
                                                          ReleaseRead read) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Release>> {
    Query q(read == ReleaseRead::kBrief ? kBriefReleaseSelect : kReleaseSelect);
    q.Append(absl::StrCat(" AND r.id = ANY(", q.Param(TextArrayLiteral(ids)), "::uuid[])"));
    std::vector<v1::Release> found = ReadReleases(tx, q.Exec(tx), read);
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < found.size(); ++i) at[found[i].release_id()] = i;
    std::vector<v1::Release> out;
    for (const auto& id : ids) {
      auto it = at.find(id);
      if (it != at.end()) out.push_back(found[it->second]);
    }
    return out;
  });
}

absl::StatusOr<std::vector<v1::Release>> ListReleases(Tx& tx, const std::string& space_id,
                                                      const Keyset& page) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Release>> {
    Query q(kReleaseSelect);
    const std::string space = q.Param(space_id);
    q.Append(absl::StrCat(" AND r.space_id = ", space, "::uuid"));
    if (!page.after.empty()) {
      // The key is the Release's ID (numbers repeat across Targets in old data); its sort
      // columns are read back from the row, which is never deleted while its Space exists.
      q.Append(
          absl::StrCat(" AND (r.published_at, r.release_num, r.id) < (SELECT k.published_at,"
                       " k.release_num, k.id FROM releases k WHERE k.space_id = ",
                       space, "::uuid AND k.id = ", q.Param(page.after[0]), "::uuid)"));
    }
    OrderAndLimit(q, page, "r.published_at DESC, r.release_num DESC, r.id DESC");
    return ReadReleases(tx, q.Exec(tx));
  });
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> DeletedSpacesWithReleases(
    Tx& tx, const std::string& slug_or_id) {
  using Out = std::vector<std::pair<std::string, std::string>>;
  return Guard([&]() -> absl::StatusOr<Out> {
    pqxx::result r = Pq(tx).exec_params(
        "SELECT DISTINCT r.space_id::text AS space_id, r.space_slug FROM releases r"
        " WHERE (r.space_id::text = $1 OR r.space_slug = $1)"
        " AND NOT EXISTS (SELECT 1 FROM spaces s WHERE s.id = r.space_id) ORDER BY 1",
        slug_or_id);
    Out out;
    for (const auto& row : r) {
      out.emplace_back(row["space_id"].as<std::string>(), row["space_slug"].as<std::string>());
    }
    return out;
  });
}

absl::Status SetReleaseStatus(Tx& tx, const std::string& release_id, const StatusReport& s) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("SELECT cub_set_release_status($1::uuid, $2, $3, $4, $5)", release_id,
                       s.sync, s.health, s.operation, s.message);
    return absl::OkStatus();
  });
}

absl::StatusOr<DeploymentFacts> ReadDeploymentFacts(Tx& tx, const v1::Release& release) {
  return Guard([&]() -> absl::StatusOr<DeploymentFacts> {
    // One row: the Release's newest entry (if any) and what the Space's history says around it.
    pqxx::row r = Pq(tx).exec_params1(
        "WITH mine AS ("
        "  SELECT id, started_at, ended_at IS NULL AS is_open, healthy_at IS NOT NULL AS is_healthy"
        "  FROM deployments WHERE space_id = $1::uuid AND release_id = $2::uuid"
        "  ORDER BY started_at DESC LIMIT 1)"
        " SELECT coalesce((SELECT id::text FROM mine), '') AS entry_id,"
        " coalesce((SELECT is_open FROM mine), false) AS entry_open,"
        " coalesce((SELECT is_healthy FROM mine), false) AS entry_healthy,"
        " EXISTS (SELECT 1 FROM deployments WHERE space_id = $1::uuid AND ended_at IS NULL)"
        "   AS space_open,"
        " EXISTS (SELECT 1 FROM deployments d, mine WHERE d.space_id = $1::uuid"
        "   AND d.started_at > mine.started_at AND d.release_id <> $2::uuid) AS newer_release",
        release.space_id(), release.release_id());
    DeploymentFacts f;
    f.entry_id = r["entry_id"].as<std::string>();
    f.entry_open = r["entry_open"].as<bool>();
    f.entry_healthy = r["entry_healthy"].as<bool>();
    f.space_open = r["space_open"].as<bool>();
    f.newer_release = r["newer_release"].as<bool>();
    return f;
  });
}

absl::Status EndDeployment(Tx& tx, const std::string& deployment_id, const std::string& reason) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE deployments SET ended_at = now(), end_reason = $2 WHERE id = $1::uuid",
        deployment_id, reason);
    return absl::OkStatus();
  });
}

absl::Status MarkDeploymentHealthy(Tx& tx, const std::string& deployment_id) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params("UPDATE deployments SET healthy_at = now() WHERE id = $1::uuid",
                       deployment_id);
    return absl::OkStatus();
  });
}

absl::Status OpenHealthyDeployment(Tx& tx, const v1::Release& release) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "INSERT INTO deployments (space_id, release_id, healthy_at)"
        " VALUES ($1::uuid, $2::uuid, now())",
        release.space_id(), release.release_id());
    return absl::OkStatus();
  });
}

absl::Status SetDeploymentRecord(Tx& tx, const std::string& release_id, const std::string& record) {
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "UPDATE deployments SET record = $2 WHERE id = (SELECT id FROM deployments"
        " WHERE release_id = $1::uuid ORDER BY started_at DESC LIMIT 1)",
        release_id, record);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::Deployment>> DeploymentHistory(Tx& tx, const std::string& space_id) {
  return Guard([&]() -> absl::StatusOr<std::vector<v1::Deployment>> {
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat("SELECT rl.id::text AS release_id, rl.release_num, rl.bundle_digest,"
                     " rl.change_order, ",
                     Rfc3339("d.started_at"), " AS started_at, coalesce(", Rfc3339("d.healthy_at"),
                     ", '') AS healthy_at, coalesce(", Rfc3339("d.ended_at"),
                     ", '') AS ended_at, d.end_reason, d.record FROM deployments d"
                     " JOIN releases rl ON rl.id = d.release_id WHERE d.space_id = $1::uuid"
                     " ORDER BY d.started_at DESC LIMIT 16"),
        space_id);
    std::vector<v1::Deployment> out;
    std::vector<std::string> release_ids;
    for (const auto& row : r) {
      release_ids.push_back(row["release_id"].as<std::string>());
      v1::Deployment d;
      d.set_release_num(row["release_num"].as<int64_t>());
      d.set_bundle_digest(row["bundle_digest"].as<std::string>());
      d.set_change_order(row["change_order"].as<std::string>());
      d.set_started_at(row["started_at"].as<std::string>());
      d.set_healthy_at(row["healthy_at"].as<std::string>());
      d.set_ended_at(row["ended_at"].as<std::string>());
      d.set_end_reason(row["end_reason"].as<std::string>());
      d.set_record(row["record"].as<std::string>());
      out.push_back(std::move(d));
    }
    internal::FillScans(tx, release_ids, out);
    return out;
  });
}

using internal::kReleaseCarriesChange;

absl::StatusOr<std::map<std::string, CarryingRelease>> ReleasesCarrying(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, CarryingRelease>> {
    std::map<std::string, CarryingRelease> out;
    if (space_ids.empty()) return out;
    // The same test of carrying as SpacesReleasing, over every Release of the Spaces; the
    // newest carrying one per Space is kept, with its rank among all of the Space's Releases.
    // Not prepared, though planning it for 10,000 Spaces takes 10 ms: its best plan depends on
    // the Tags and on how many Spaces it is given, which a generic plan would not see.
    static const std::string kCarrying = absl::StrCat(
        "WITH ranked AS ("
        "  SELECT r.id, r.space_id, row_number() OVER (PARTITION BY r.space_id"
        "                     ORDER BY r.published_at DESC, r.release_num DESC) AS rn"
        "  FROM releases r WHERE r.space_id = ANY($3::uuid[])),"
        " carrying AS ("
        "  SELECT DISTINCT ON (c.space_id) c.id, c.rn FROM ranked c"
        " WHERE ",
        kReleaseCarriesChange,
        "  ORDER BY c.space_id, c.rn)"
        " SELECT (SELECT k.rn FROM carrying k WHERE k.id = r.id) = 1 AS latest_carrying, ",
        kReleaseSelect.substr(std::string_view("SELECT ").size()),
        " AND r.id IN (SELECT id FROM carrying)");
    pqxx::result r =
        Pq(tx).exec_params(kCarrying, start_tag_id, publish_tag_id, TextArrayLiteral(space_ids));
    std::vector<v1::Release> releases = ReadReleases(tx, r);
    std::set<std::string> newest;
    for (const auto& row : r) {
      if (row["latest_carrying"].as<bool>()) newest.insert(row["release_id"].as<std::string>());
    }
    for (auto& rel : releases) {
      CarryingRelease c;
      c.latest = newest.count(rel.release_id()) > 0;
      std::string space_id = rel.space_id();
      c.release = std::move(rel);
      out[space_id] = std::move(c);
    }
    return out;
  });
}

absl::StatusOr<std::set<std::string>> SpacesReleasing(Tx& tx, const std::string& start_tag_id,
                                                      const std::string& publish_tag_id,
                                                      const std::vector<std::string>& space_ids,
                                                      bool latest_only) {
  return Guard([&]() -> absl::StatusOr<std::set<std::string>> {
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat("WITH cand AS ("
                     "  SELECT r.id, r.space_id, r.sync_status, r.health_status, r.operation_state,"
                     "  row_number() OVER (PARTITION BY r.space_id"
                     "                     ORDER BY r.published_at DESC, r.release_num DESC) AS rn"
                     "  FROM releases r WHERE r.space_id = ANY($3::uuid[]))"
                     " SELECT DISTINCT c.space_id::text AS space_id FROM cand c"
                     " WHERE (NOT $4 OR (c.rn = 1 AND c.sync_status = 'Synced'"
                     "                   AND c.health_status = 'Healthy'"
                     "                   AND c.operation_state NOT IN ('Running', 'Failed')))"
                     " AND ",
                     kReleaseCarriesChange),
        start_tag_id, publish_tag_id, TextArrayLiteral(space_ids), latest_only);
    std::set<std::string> out;
    for (const auto& row : r) out.insert(row["space_id"].as<std::string>());
    return out;
  });
}

absl::StatusOr<ReleasingSpaces> SpacesReleasingAndHealthy(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<ReleasingSpaces> {
    pqxx::result r = Pq(tx).exec_params(
        absl::StrCat(
            "WITH cand AS ("
            "  SELECT r.id, r.space_id, r.sync_status, r.health_status, r.operation_state,"
            "  row_number() OVER (PARTITION BY r.space_id"
            "                     ORDER BY r.published_at DESC, r.release_num DESC) AS rn"
            "  FROM releases r WHERE r.space_id = ANY($3::uuid[]))"
            " SELECT c.space_id::text AS space_id,"
            " bool_or(c.rn = 1 AND c.sync_status = 'Synced' AND c.health_status = 'Healthy'"
            "         AND c.operation_state NOT IN ('Running', 'Failed')) AS healthy"
            " FROM cand c WHERE ",
            kReleaseCarriesChange, " GROUP BY c.space_id"),
        start_tag_id, publish_tag_id, TextArrayLiteral(space_ids));
    ReleasingSpaces out;
    for (const auto& row : r) {
      std::string id = row["space_id"].as<std::string>();
      if (row["healthy"].as<bool>()) out.healthy.insert(id);
      out.released.insert(std::move(id));
    }
    return out;
  });
}

absl::StatusOr<bool> ChangeOrderReleasedIn(Tx& tx, const std::string& space_id,
                                           const std::string& co_id) {
  return Guard([&]() -> absl::StatusOr<bool> {
    return !Pq(tx)
                .exec_params(
                    "SELECT 1 FROM releases WHERE space_id = $1::uuid"
                    " AND change_order_id = $2::uuid LIMIT 1",
                    space_id, co_id)
                .empty();
  });
}

absl::StatusOr<std::set<std::string>> SpacesWithTarget(Tx& tx,
                                                       const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::set<std::string>> {
    // Prepared, though it takes an array: planned with the array's values, the selectivity of
    // `= ANY` is estimated element by element (10 ms for 10,000 IDs), and the only plans it has
    // (probe the index of Spaces with a Target per ID, or scan them) are never far apart.
    static const std::string kWithTarget =
        "SELECT id::text AS space_id FROM spaces WHERE id = ANY($1::uuid[])"
        " AND release_target_id IS NOT NULL";
    pqxx::result r = ExecPrepared(tx, kWithTarget, TextArrayLiteral(space_ids));
    std::set<std::string> out;
    for (const auto& row : r) out.insert(row["space_id"].as<std::string>());
    return out;
  });
}

}  // namespace cub::store
