// Scan findings for Releases: what `cub release set-status --vulnerabilities` records.
//
// A scanner (the scanner role), a reporter or an admin of the Space records how many
// vulnerabilities a scan of a Release found, per severity (lib/domain/vulnerabilities.h). The
// newest scan is the Release's findings: shown with it, and read by CEL gates as
// Release.Vulnerabilities. Recording findings changes nothing that is deployed and no
// Release's live status: gates hold new promotions only.
#ifndef CUB_LIB_OPS_RELEASE_SCANS_H_
#define CUB_LIB_OPS_RELEASE_SCANS_H_

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "cub/v1/space.pb.h"
#include "lib/domain/vulnerabilities.h"
#include "lib/ops/principal.h"
#include "lib/store/transaction.h"

namespace cub::ops {

// The event recorded when a Release's findings exceed, in some severity both scans report,
// the newest findings of the Release published before it in its Space.
inline constexpr char kVulnerabilitiesIncreased[] = "VulnerabilitiesIncreased";

// The findings of a status request, checked (unknown severities and negative counts are
// INVALID_ARGUMENT naming them); empty when it carries none.
absl::StatusOr<domain::Vulnerabilities> RequestedFindings(const v1::SetReleaseStatusRequest& req);

// Records `findings` (not empty) for `release` of `space` as `p`, whose scanner, reporter or
// admin role the caller has checked: the scan row, the VulnerabilitiesIncreased event when
// they increased, and a wake-up of the engine for the ChangeOrders in the Space (a gate
// waiting for a clean scan may open).
absl::Status RecordScan(store::Tx& tx, const Principal& p, const v1::Space& space,
                        const v1::Release& release, const domain::Vulnerabilities& findings);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_SCANS_H_
