// Release Targets, Releases with their bundled Units and live status, and the deployment
// history a Space keeps. Release rows are written once, complete; only their live status and
// (once) their delivery change, through the database functions cub_set_release_status and
// cub_set_release_delivery. Triggers refuse anything else (migrations/0012), and Releases are
// kept when their Space is deleted.
#ifndef CUB_LIB_STORE_RELEASES_H_
#define CUB_LIB_STORE_RELEASES_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewTarget {
  std::string space_id;
  std::string slug;
  std::string provider;
  std::map<std::string, std::string> params;
};
v1::Target InsertTarget(Tx& tx, const NewTarget& t);
std::optional<v1::Target> FindTarget(Tx& tx, const std::string& space_id,
                                     const std::string& slug_or_id);
std::optional<v1::Target> FindTargetByID(Tx& tx, const std::string& id);
std::vector<v1::Target> ListTargets(Tx& tx, const std::string& space_id);
v1::Target UpdateTargetParams(Tx& tx, const std::string& id,
                              const std::map<std::string, std::string>& params);
// FAILED_PRECONDITION naming the Spaces that release to it.
absl::Status DeleteTarget(Tx& tx, const v1::Target& t);

struct NewRelease {
  std::string space_id;
  std::string space_slug;
  std::string target_id;
  std::string target;  // "SPACE/TARGET"
  int64_t release_num = 0;
  std::string change_order_id;  // empty: none
  std::string change_order;     // "BASE/NAME"
  std::string revision_selector;
  std::string description;
  std::string bundle_digest;
  std::string published_by;
  std::string published_at;  // RFC 3339, as the provenance names it
  std::string provenance;
  std::string sealed_approvals;  // empty: none
  std::vector<v1::ReleaseUnit> units;
};
// Locks the Target's row (publishes to one Target take turns until the transaction ends) and
// returns its next ReleaseNum.
int64_t LockNextReleaseNum(Tx& tx, const std::string& target_id);
// Writes the Release, complete with its signed records (the row is append-only: see
// migrations/0012), and its Units, moves each Unit's LastReleasedRevisionNum, supersedes the
// Space's current deployment and opens a new one. Call under LockNextReleaseNum. Returns the
// Release's ID.
std::string InsertRelease(Tx& tx, const NewRelease& r);
// Records where the Target put it (once: a second delivery of one Release is refused).
void SetReleaseDelivery(Tx& tx, const std::string& release_id, const std::string& location,
                        const std::string& commit);

std::optional<v1::Release> FindRelease(Tx& tx, const std::string& space_id, int64_t release_num);
std::optional<v1::Release> FindReleaseByDigest(Tx& tx, const std::string& space_id,
                                               const std::string& bundle_digest);
std::optional<v1::Release> FindReleaseByID(Tx& tx, const std::string& release_id);
// Newest first.
std::vector<v1::Release> ListReleases(Tx& tx, const std::string& space_id);
// The deleted Spaces whose Releases are kept and carry `slug_or_id` as their Space's ID or
// slug: (ID, slug) pairs, by ID.
std::vector<std::pair<std::string, std::string>> DeletedSpacesWithReleases(
    Tx& tx, const std::string& slug_or_id);

// The data of every revision a Release bundled, keyed by Unit slug, in one query.
std::map<std::string, std::string> ReleaseData(Tx& tx, const std::string& release_id);

struct StatusReport {
  std::string sync, health, operation, message;
};
// Writes the live status and keeps the deployment history in step: the first Healthy report
// of the current deployment stamps healthy_at (returning true then, so the caller can sign the
// record); Degraded ends it; Healthy after Degraded opens a new entry.
bool SetReleaseStatus(Tx& tx, const v1::Release& release, const StatusReport& s);
void SetDeploymentRecord(Tx& tx, const std::string& release_id, const std::string& record);
// The 16 most recent deployments, newest first.
std::vector<v1::Deployment> DeploymentHistory(Tx& tx, const std::string& space_id);

// For the gates: among `space_ids`, the Spaces whose Release carries the change, i.e. bundles,
// for every Unit the change changed there (start and publish marks differ), at least the
// revision the publish Tag marks. `latest_only` looks at each Space's latest Release only, and
// also requires its live status to be Synced and Healthy with no operation Running or Failed.
std::set<std::string> SpacesReleasing(Tx& tx, const std::string& start_tag_id,
                                      const std::string& publish_tag_id,
                                      const std::vector<std::string>& space_ids, bool latest_only);
// Whether a Release of the ChangeOrder has been published in the Space.
bool ChangeOrderReleasedIn(Tx& tx, const std::string& space_id, const std::string& co_id);
// Among `space_ids`, those with a release Target.
std::set<std::string> SpacesWithTarget(Tx& tx, const std::vector<std::string>& space_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_RELEASES_H_
