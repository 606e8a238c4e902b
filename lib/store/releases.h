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
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

// Every function here returns a Status and never throws: a database error comes back as the
// Status lib/store/errors.h maps it to.

struct NewTarget {
  std::string space_id;
  std::string slug;
  std::string provider;
  std::map<std::string, std::string> params;
};
// The Target as stored. ALREADY_EXISTS when the Space has a Target of that slug.
absl::StatusOr<v1::Target> InsertTarget(Tx& tx, const NewTarget& t);
// The Space's Target of that slug or ID; nullopt when it has none.
absl::StatusOr<std::optional<v1::Target>> FindTarget(Tx& tx, const std::string& space_id,
                                                     const std::string& slug_or_id);
// nullopt when no Target has that ID.
absl::StatusOr<std::optional<v1::Target>> FindTargetByID(Tx& tx, const std::string& id);
// By slug; `page` continues after a Target slug.
absl::StatusOr<std::vector<v1::Target>> ListTargets(Tx& tx, const std::string& space_id,
                                                    const Keyset& page = {});
// Merges `params` into the Target's (an empty value removes the key) and returns the Target
// as stored; NOT_FOUND when no Target has that ID.
absl::StatusOr<v1::Target> UpdateTargetParams(Tx& tx, const std::string& id,
                                              const std::map<std::string, std::string>& params);
// FAILED_PRECONDITION naming the Spaces that release to it, or when Releases keep it.
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
// Takes each Space's release-number lock (publishes in one Space take turns on it until the
// transaction ends; Spaces are locked in ID order, so overlapping sets do not deadlock) and
// returns each Space's next ReleaseNum: numbers count per Space, whatever the Target.
absl::StatusOr<std::map<std::string, int64_t>> LockNextReleaseNums(
    Tx& tx, std::vector<std::string> space_ids);
// The same for one Space.
absl::StatusOr<int64_t> LockNextReleaseNum(Tx& tx, const std::string& space_id);
// Writes the Release, complete with its signed records (the row is append-only: see
// migrations/0012), and its Units, moves each Unit's LastReleasedRevisionNum, supersedes the
// Space's current deployment and opens a new one. The Release is Pending delivery, and the
// commit sends NOTIFY cub_delivery (lib/ops/delivery.h). Call under LockNextReleaseNum.
// Returns the Release's ID; ALREADY_EXISTS when the Space has a Release of that number.
absl::StatusOr<std::string> InsertRelease(Tx& tx, const NewRelease& r);
// Records the Release Delivered where the Target put it (lib/store/deliveries.h records many
// at once); a Release Delivered already is left as it is; a Release ID that names none is a
// database error.
absl::Status SetReleaseDelivery(Tx& tx, const std::string& release_id, const std::string& location,
                                const std::string& commit);

// The Space's Release of that number (the newest, should a deleted Space's and a new one's
// share its ID); nullopt when there is none.
absl::StatusOr<std::optional<v1::Release>> FindRelease(Tx& tx, const std::string& space_id,
                                                       int64_t release_num);
// The Space's newest Release of that bundle digest; nullopt when there is none.
absl::StatusOr<std::optional<v1::Release>> FindReleaseByDigest(Tx& tx, const std::string& space_id,
                                                               const std::string& bundle_digest);
// nullopt when no Release has that ID.
absl::StatusOr<std::optional<v1::Release>> FindReleaseByID(Tx& tx, const std::string& release_id);
// How much of a Release a read fills in.
enum class ReleaseRead {
  kWhole,  // everything
  kBrief,  // no Provenance, SealedApprovals or Units (what a table of Releases shows)
};
// The Releases of those IDs, in the order given; IDs that name none are left out. Two queries
// (three with scans) however many; one fewer when brief.
absl::StatusOr<std::vector<v1::Release>> FindReleasesByID(Tx& tx,
                                                          const std::vector<std::string>& ids,
                                                          ReleaseRead read = ReleaseRead::kWhole);
// Newest first (publish time, then number); `page` continues after a Release ID.
absl::StatusOr<std::vector<v1::Release>> ListReleases(Tx& tx, const std::string& space_id,
                                                      const Keyset& page = {});
// The deleted Spaces whose Releases are kept and carry `slug_or_id` as their Space's ID or
// slug: (ID, slug) pairs, by ID.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> DeletedSpacesWithReleases(
    Tx& tx, const std::string& slug_or_id);

// A live status report, as cub release set-status sends it.
struct StatusReport {
  std::string sync, health, operation, message;
};
// Writes the Release's live status (and its time) through cub_set_release_status, which
// refuses a value it does not know (INVALID_ARGUMENT) and an ID that names no Release (a
// database error). Only the live status: what the report
// does to the deployment history is for the caller to decide (lib/ops/release_status_rules.h)
// and write with the functions below.
absl::Status SetReleaseStatus(Tx& tx, const std::string& release_id, const StatusReport& s);

// What a Space's deployment history holds for one of its Releases: the facts the release
// status rules decide on.
struct DeploymentFacts {
  // The Release's newest deployment entry in its Space; empty when it has none.
  std::string entry_id;
  // That entry is the Space's current deployment (it has not ended).
  bool entry_open = false;
  // That entry has its healthy time.
  bool entry_healthy = false;
  // The Space has a current deployment, this Release's or another's.
  bool space_open = false;
  // An entry of another Release began after that entry (a newer publish, possibly ended).
  bool newer_release = false;
};
absl::StatusOr<DeploymentFacts> ReadDeploymentFacts(Tx& tx, const v1::Release& release);
// Ends the deployment entry now, for `reason` ("Degraded"). The database refuses to end an
// entry twice (FAILED_PRECONDITION).
absl::Status EndDeployment(Tx& tx, const std::string& deployment_id, const std::string& reason);
// Stamps the entry's healthy time now (once: FAILED_PRECONDITION for a second time).
absl::Status MarkDeploymentHealthy(Tx& tx, const std::string& deployment_id);
// Opens a new current deployment entry of the Release in its Space, healthy now.
absl::Status OpenHealthyDeployment(Tx& tx, const v1::Release& release);
// Writes the signed record onto the Release's newest deployment entry (once).
absl::Status SetDeploymentRecord(Tx& tx, const std::string& release_id, const std::string& record);
// The 16 most recent deployments, newest first.
absl::StatusOr<std::vector<v1::Deployment>> DeploymentHistory(Tx& tx, const std::string& space_id);

// For the gates: among `space_ids`, the Spaces whose Release carries the change, i.e. bundles,
// for every Unit the change changed there (start and publish marks differ), at least the
// revision the publish Tag marks. `latest_only` looks at each Space's latest Release only, and
// also requires its live status to be Synced and Healthy with no operation Running or Failed.
absl::StatusOr<std::set<std::string>> SpacesReleasing(Tx& tx, const std::string& start_tag_id,
                                                      const std::string& publish_tag_id,
                                                      const std::vector<std::string>& space_ids,
                                                      bool latest_only);
// Both answers of SpacesReleasing at once, from one query: `released` as with latest_only
// false, `healthy` as with latest_only true (a subset of `released`).
struct ReleasingSpaces {
  std::set<std::string> released;
  std::set<std::string> healthy;
};
absl::StatusOr<ReleasingSpaces> SpacesReleasingAndHealthy(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);
// For the gates: per Space of `space_ids`, its newest Release that carries the change (as
// SpacesReleasing defines it), Units included, and whether that is also the Space's newest
// Release. Spaces with no such Release are absent. Two queries whatever the number of Spaces.
struct CarryingRelease {
  v1::Release release;
  bool latest = false;
};
absl::StatusOr<std::map<std::string, CarryingRelease>> ReleasesCarrying(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);
// Whether a Release of the ChangeOrder has been published in the Space.
absl::StatusOr<bool> ChangeOrderReleasedIn(Tx& tx, const std::string& space_id,
                                           const std::string& co_id);
// Among `space_ids`, those with a release Target.
absl::StatusOr<std::set<std::string>> SpacesWithTarget(Tx& tx,
                                                       const std::vector<std::string>& space_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_RELEASES_H_
