#include "lib/store/scans.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/store/pq.h"
#include "lib/store/sql.h"

namespace cub::store {
namespace {

using domain::Severity;

// A count as a bind parameter: its decimal text, or "" for a severity not reported.
std::string CountParam(const domain::Vulnerabilities& v, Severity s) {
  auto it = v.find(s);
  return it == v.end() ? "" : std::to_string(it->second);
}

// The newest scan of the release aliased `alias`, as `sc`.
std::string NewestScanJoin(const std::string& alias) {
  return absl::StrCat(
      " JOIN LATERAL (SELECT critical, high, medium, low, scanned_by_name, scanned_at"
      " FROM release_scans WHERE release_id = ",
      alias, ".id ORDER BY seq DESC LIMIT 1) sc ON true");
}

// What FindingsFromRow and SummaryFromRow read.
std::string ScanColumns() {
  return absl::StrCat(" sc.critical, sc.high, sc.medium, sc.low, sc.scanned_by_name, ",
                      Rfc3339("sc.scanned_at"), " AS scanned_at");
}

domain::Vulnerabilities FindingsFromRow(const pqxx::row& row) {
  domain::Vulnerabilities v;
  const std::pair<Severity, const char*> columns[] = {{Severity::kCritical, "critical"},
                                                      {Severity::kHigh, "high"},
                                                      {Severity::kMedium, "medium"},
                                                      {Severity::kLow, "low"}};
  for (const auto& [s, column] : columns) {
    if (!row[column].is_null()) v[s] = row[column].as<int32_t>();
  }
  return v;
}

template <typename ProtoMap>
void PutFindings(const domain::Vulnerabilities& v, ProtoMap* out) {
  for (const auto& [s, n] : v) (*out)[std::string(domain::SeverityName(s))] = n;
}

}  // namespace

absl::Status InsertScan(Tx& tx, const NewScan& scan) {
  if (scan.findings.empty()) return absl::InvalidArgumentError("a scan reports no findings");
  return Guard([&]() -> absl::Status {
    Pq(tx).exec_params(
        "INSERT INTO release_scans (release_id, space_id, critical, high, medium, low,"
        " scanned_by, scanned_by_name) VALUES ($1::uuid, $2::uuid, NULLIF($3, '')::int,"
        " NULLIF($4, '')::int, NULLIF($5, '')::int, NULLIF($6, '')::int, NULLIF($7, '')::uuid,"
        " $8)",
        scan.release_id, scan.space_id, CountParam(scan.findings, Severity::kCritical),
        CountParam(scan.findings, Severity::kHigh), CountParam(scan.findings, Severity::kMedium),
        CountParam(scan.findings, Severity::kLow), scan.user_id, scan.username);
    return absl::OkStatus();
  });
}

namespace {

std::map<std::string, ScanSummary> ReadNewestScans(Tx& tx,
                                                   const std::vector<std::string>& release_ids) {
  std::map<std::string, ScanSummary> out;
  if (release_ids.empty()) return out;
  pqxx::result rows =
      Pq(tx).exec_params(absl::StrCat("SELECT r.id::text AS release_id,", ScanColumns(),
                                      " FROM unnest($1::uuid[]) AS r(id)", NewestScanJoin("r")),
                         TextArrayLiteral(release_ids));
  for (const auto& row : rows) {
    out[row["release_id"].as<std::string>()] =
        ScanSummary{FindingsFromRow(row), row["scanned_at"].as<std::string>(),
                    row["scanned_by_name"].as<std::string>()};
  }
  return out;
}

}  // namespace

absl::StatusOr<std::map<std::string, ScanSummary>> NewestScans(
    Tx& tx, const std::vector<std::string>& release_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, ScanSummary>> {
    return ReadNewestScans(tx, release_ids);
  });
}

absl::StatusOr<std::map<std::string, std::set<std::string>>> Scanners(
    Tx& tx, const std::vector<std::string>& space_ids) {
  return Guard([&]() -> absl::StatusOr<std::map<std::string, std::set<std::string>>> {
    std::map<std::string, std::set<std::string>> out;
    pqxx::result rows = Pq(tx).exec_params(
        "SELECT DISTINCT p.space_id::text AS space_id,"
        " coalesce(p.user_id, g.user_id)::text AS user_id"
        " FROM space_permissions p LEFT JOIN user_groups g ON g.group_name = p.group_name"
        " WHERE p.space_id = ANY($1::uuid[]) AND p.role = 'scanner'"
        " AND coalesce(p.user_id, g.user_id) IS NOT NULL",
        TextArrayLiteral(space_ids));
    for (const auto& row : rows) {
      out[row["space_id"].as<std::string>()].insert(row["user_id"].as<std::string>());
    }
    return out;
  });
}

namespace internal {

void FillScans(Tx& tx, std::vector<v1::Release>& releases) {
  std::vector<std::string> ids;
  for (const auto& r : releases) ids.push_back(r.release_id());
  const auto scans = ReadNewestScans(tx, ids);
  for (auto& r : releases) {
    auto it = scans.find(r.release_id());
    if (it == scans.end()) continue;
    PutFindings(it->second.findings, r.mutable_vulnerabilities());
    r.set_scanned_at(it->second.scanned_at);
    r.set_scanned_by(it->second.scanned_by);
  }
}

void FillScans(Tx& tx, const std::vector<std::string>& release_ids,
               std::vector<v1::Deployment>& deployments) {
  const auto scans = ReadNewestScans(tx, release_ids);
  for (size_t i = 0; i < deployments.size() && i < release_ids.size(); ++i) {
    auto it = scans.find(release_ids[i]);
    if (it == scans.end()) continue;
    PutFindings(it->second.findings, deployments[i].mutable_vulnerabilities());
    deployments[i].set_scanned_at(it->second.scanned_at);
  }
}

}  // namespace internal

absl::StatusOr<std::optional<domain::Vulnerabilities>> PreviousReleaseFindings(
    Tx& tx, const v1::Release& release) {
  return Guard([&]() -> absl::StatusOr<std::optional<domain::Vulnerabilities>> {
    pqxx::result rows = Pq(tx).exec_params(
        absl::StrCat("SELECT", ScanColumns(),
                     " FROM releases me JOIN LATERAL (SELECT p.id FROM releases p"
                     "  WHERE p.space_id = me.space_id AND p.id <> me.id"
                     "  AND (p.published_at, p.release_num) < (me.published_at, me.release_num)"
                     "  ORDER BY p.published_at DESC, p.release_num DESC LIMIT 1) prev ON true",
                     NewestScanJoin("prev"), " WHERE me.id = $1::uuid"),
        release.release_id());
    if (rows.empty()) return std::optional<domain::Vulnerabilities>();
    return std::optional<domain::Vulnerabilities>(FindingsFromRow(rows[0]));
  });
}

}  // namespace cub::store
