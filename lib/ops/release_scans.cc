#include "lib/ops/release_scans.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/scans.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

Json FindingsJson(const domain::Vulnerabilities& v) {
  Json out = Json::object();
  for (const auto& [s, n] : v) out[std::string(domain::SeverityName(s))] = n;
  return out;
}

}  // namespace

absl::StatusOr<domain::Vulnerabilities> RequestedFindings(const v1::SetReleaseStatusRequest& req) {
  std::map<std::string, int64_t> given(req.vulnerabilities().begin(), req.vulnerabilities().end());
  return domain::VulnerabilitiesFromMap(given);
}

absl::Status RecordScan(store::Tx& tx, const Principal& p, const v1::Space& space,
                        const v1::Release& release, const domain::Vulnerabilities& findings) {
  // Read before the insert, though it reads another Release: the comparison is with what was
  // known when this scan came in.
  CUB_ASSIGN_OR_RETURN(auto before, store::PreviousReleaseFindings(tx, release));
  store::NewScan scan;
  scan.release_id = release.release_id();
  scan.space_id = space.space_id();
  scan.findings = findings;
  scan.user_id = p.user_id;
  scan.username = p.username;
  CUB_RETURN_IF_ERROR(store::InsertScan(tx, scan));
  const std::string increased = before ? domain::Increases(*before, findings) : "";
  if (!increased.empty()) {
    store::NewEvent e;
    e.kind = kVulnerabilitiesIncreased;
    e.space_id = space.space_id();
    e.space_slug = space.slug();
    e.change_order_id = release.change_order_id();
    e.change_order = release.change_order();
    e.user_id = p.user_id;
    e.username = p.username;
    e.message = absl::StrCat("Release ", release.release_num(), " of space '", space.slug(),
                             "' has more findings than the Release before it: ", increased);
    Json details = {{"ReleaseNum", release.release_num()},
                    {"BundleDigest", release.bundle_digest()},
                    {"Vulnerabilities", FindingsJson(findings)},
                    {"PreviousVulnerabilities", FindingsJson(*before)}};
    e.details_json = JsonText(details);
    CUB_RETURN_IF_ERROR(store::AppendEvent(tx, e));
  }
  return store::WakeChangeOrdersInSpace(tx, space.space_id());
}

}  // namespace cub::ops
