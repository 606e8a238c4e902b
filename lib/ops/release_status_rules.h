// What a live status report means for a Release and its Space's deployment history: the
// health rule and the deployment-history state machine of cub release set-status. Pure: the
// store reads the facts (store::DeploymentFacts) and writes the step decided here, so these
// rules are tested without a database (tests/unit/release_status_rules_test.cc).
//
// The history of a Space is a list of deployment entries, one current (not ended) at a time:
//   publish            supersedes the current entry and opens one for the new Release
//                      (store::InsertRelease).
//   report healthy     on the Release's current entry: stamps its healthy time, the first time
//                      only, and that first time the deployment record is signed.
//   report Degraded    on the Release's current entry: ends it, for "Degraded".
//   report healthy     on a Release whose entry ended Degraded, with no newer Release published
//                      in the Space and no entry current: a recovery, a new entry, healthy now
//                      (and signed).
// Any other report changes only the Release's live status.
#ifndef CUB_LIB_OPS_RELEASE_STATUS_RULES_H_
#define CUB_LIB_OPS_RELEASE_STATUS_RULES_H_

#include "lib/store/releases.h"

namespace cub::ops {

// The end reason of an entry ended by a Degraded report.
inline constexpr char kDegradedEnd[] = "Degraded";

// The health rule: a report is healthy when it is Synced and Healthy with no operation Running
// or Failed. (The Healthy gate applies it to the stored live status of the Release
// store::ReleasesCarrying finds; store::SpacesReleasing with latest_only has it in SQL.)
bool IsHealthyReport(const store::StatusReport& s);

// What a report does to the deployment history.
enum class DeploymentStep {
  kNone,         // the history stays as it is
  kEndDegraded,  // end the Release's current entry (facts.entry_id), for kDegradedEnd
  kMarkHealthy,  // stamp the healthy time of the Release's current entry (facts.entry_id)
  kOpenHealthy,  // open a new current entry of the Release, healthy now (a recovery)
};

// The step a report `s` on a Release takes, given what its Space's history holds for it.
DeploymentStep DeploymentStepFor(const store::StatusReport& s, const store::DeploymentFacts& f);

// Whether the step makes a deployment healthy for the first time, so that its deployment record
// is signed.
bool SignsDeploymentRecord(DeploymentStep step);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_RELEASE_STATUS_RULES_H_
