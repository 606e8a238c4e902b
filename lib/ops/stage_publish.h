// Publishing a whole Stage of a ChangeOrder in one step: every Space of the Stage that has taken
// the ChangeOrder, has a release Target, has not yet published it and passes its release gates
// gets its own Release (its own number, bundle, signed provenance and sealed approvals), all
// recorded in one transaction and then delivered together (one commit per Target,
// lib/ops/delivery.h). A Space refused (its gates, a freeze, blocked content, validation errors,
// the caller's role) is reported with the reason a publish of it alone would give; the rest
// still publish. Publishing again publishes nothing twice: Spaces that already carry the
// ChangeOrder are reported as such.
//
// Set-based throughout: a fixed number of queries whatever the number of Spaces and Units (one
// for every Unit's marked revision and data, one evaluation of each gate over all Spaces, bulk
// inserts); only signing is per Release. The single-Space publish (PublishRelease) records its
// Release through the same RecordReleases, and the engine's AutoRelease publishes a Stage
// through PublishStage.
#ifndef CUB_LIB_OPS_STAGE_PUBLISH_H_
#define CUB_LIB_OPS_STAGE_PUBLISH_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/release.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/principal.h"
#include "lib/ops/releases.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

struct StagePublishRequest {
  std::string change_order;  // "BASE/NAME"
  std::string stage;
  std::string where_space;  // narrows the Stage's Spaces; may be empty
  std::string description;
  bool dry_run = false;
  // Leave out, unreported, the Spaces that have not taken the change or have no release Target
  // (the engine publishes what is ready and waits for the rest without calling it a refusal).
  bool only_ready = false;
  // Run in the transaction once the Spaces' release numbers are locked, before anything is
  // recorded: an error from it is returned and nothing is published. The engine checks there
  // that AutoRelease still applies.
  std::function<absl::Status(store::Tx&)> still_wanted;
  // How long to wait for the delivery of what was recorded (DeliverNow).
  absl::Duration delivery_wait = absl::Seconds(30);
  // Answer the Releases without Provenance, SealedApprovals and Units (dry runs included).
  bool brief = false;
};

struct StagePublishResult {
  v1::PublishReleasesResponse response;
  // Each refusal as a Status, parallel to response.refused(): its code, and the moment time
  // alone may lift it (lib/ops/gate_next_change.h) for the engine.
  std::vector<absl::Status> refusals;
};

// Refused as a whole (nothing published): INVALID_ARGUMENT for a missing ChangeOrder or Stage,
// a Stage the ChangeOrder's workflow lacks, a WhereSpace that does not compile or selects no
// Space of the Stage; FAILED_PRECONDITION for a ChangeOrder without a workflow; what
// still_wanted returns. A dry run returns what would be published, unsigned and unnumbered.
absl::StatusOr<StagePublishResult> PublishStage(store::ConnectionPool& db, const ReleaseEnv& env,
                                                const Principal& p, const StagePublishRequest& req);

// The PublishReleases RPC: PublishStage for the request.
absl::StatusOr<v1::PublishReleasesResponse> PublishReleases(store::ConnectionPool& db,
                                                            const ReleaseEnv& env,
                                                            const Principal& p,
                                                            const v1::PublishReleasesRequest& req);

// One Release to record, decided and checked: its Space and Target, its bundle (Units and, in
// the same order, their file names) and digest, the selector that chose it, its ChangeOrder (if
// any), and the attestation prerequisites whose votes are sealed onto it.
struct ReleaseToRecord {
  v1::Space space;
  v1::Target target;
  std::vector<v1::ReleaseUnit> units;
  std::vector<std::string> file_names;
  std::string digest;
  std::string selector;
  std::string change_order_id;
  std::string change_order;                  // "BASE/NAME"
  const ResolvedChangeOrder* rco = nullptr;  // needed when `seal` is not empty
  std::string seal_stage;
  std::vector<const workflow::AttestationPrerequisite*> seal;
};

// Numbers (per Space, under each Space's release-number lock), signs and writes every Release of
// `releases` (at most one per Space) with one time of publication, appends a Published event for
// each and wakes the ChangeOrders in their Spaces. Returns the Release IDs in the order given.
// Signs and writes them 1,000 at a time, so a whole Stage's signed records are never held at
// once. Nothing is handed to a Target here.
absl::StatusOr<std::vector<std::string>> RecordReleases(
    store::Tx& tx, const ReleaseEnv& env, const Principal& p,
    const std::vector<ReleaseToRecord>& releases, const std::string& description);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_STAGE_PUBLISH_H_
