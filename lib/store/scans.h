// Scan findings of Releases (migrations/0015): one append-only row per scan recorded, the
// newest of a Release being its findings. A severity a scan did not report is not stored.
#ifndef CUB_LIB_STORE_SCANS_H_
#define CUB_LIB_STORE_SCANS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/domain/vulnerabilities.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewScan {
  std::string release_id;
  std::string space_id;
  domain::Vulnerabilities findings;  // at least one severity
  std::string user_id;               // may be empty (the server's own account)
  std::string username;
};
// Records the scan; INVALID_ARGUMENT for no findings (the database refuses too).
absl::Status InsertScan(Tx& tx, const NewScan& scan);

// The newest scan of a Release.
struct ScanSummary {
  domain::Vulnerabilities findings;
  std::string scanned_at;  // RFC 3339
  std::string scanned_by;  // username
};
// The newest scan of each of `release_ids` that was ever scanned, by Release ID; one query.
absl::StatusOr<std::map<std::string, ScanSummary>> NewestScans(
    Tx& tx, const std::vector<std::string>& release_ids);

// The holders of the scanner role on each of `space_ids` (directly or through a group), people
// and service accounts alike: the check identities a non-Approval AttestationPrerequisite with
// no FromUserIDs or FromGroups counts, besides approvers. User IDs by Space ID.
absl::StatusOr<std::map<std::string, std::set<std::string>>> Scanners(
    Tx& tx, const std::vector<std::string>& space_ids);

namespace internal {
// For lib/store's Release readers, which run inside a Guard: these throw the database's errors.
// Sets Vulnerabilities, ScannedAt and ScannedBy of each of `releases` from its newest scan, in
// one query; a Release never scanned is left without them.
void FillScans(Tx& tx, std::vector<v1::Release>& releases);
// The same for deployments: `release_ids[i]` is the Release of `deployments[i]`.
void FillScans(Tx& tx, const std::vector<std::string>& release_ids,
               std::vector<v1::Deployment>& deployments);
}  // namespace internal

// The newest findings of the Release published just before `release` in its Space (by publish
// time); nullopt when there is none, or it was never scanned.
absl::StatusOr<std::optional<domain::Vulnerabilities>> PreviousReleaseFindings(
    Tx& tx, const v1::Release& release);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_SCANS_H_
