// Delivery of recorded Releases to their Targets: the outbox between the database and Git (or a
// directory).
//
// A publish records its Releases, signed and complete, with DeliveryState Pending, in one
// transaction that touches no Target; its commit sends NOTIFY cub_delivery. Delivery happens
// after, per Target, by whichever cubd claims the Target through PostgreSQL (a lock held only by
// one session at a time, like the engine's): it reads the Target's due Releases, checks each
// against its signed provenance, hands them to the provider as one batch per publisher (one Git
// commit), and records them Delivered (location, commit) in one statement. A batch the Target
// already holds, because a cubd stopped between its commit and the record, is recognized by the
// provider (the commit's Cub-Release trailers) and recorded, not committed again. A failure
// records Failed with the error and the attempt, due again after a backoff (doubling from
// first_backoff to max_backoff), and appends a DeliveryFailed event in each Space.
//
// Since the database is written first and a Target only after, every interleaving of a crash
// leaves the two agreeing once any cubd runs again: Releases not in the Target are Pending and
// get delivered; Releases in the Target but recorded Pending are found and recorded.
#ifndef CUB_LIB_OPS_DELIVERY_H_
#define CUB_LIB_OPS_DELIVERY_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/release.pb.h"
#include "lib/ops/releases.h"
#include "lib/store/pool.h"
#include "lib/store/releases.h"

namespace cub::ops {

// The channel a publish notifies at commit, and delivery workers listen on.
inline constexpr char kDeliveryChannel[] = "cub_delivery";

struct DeliveryOptions {
  absl::Duration first_backoff = absl::Seconds(2);
  absl::Duration max_backoff = absl::Minutes(5);
  // The most Releases one pass hands to a provider; more wait for the next pass.
  int batch_limit = 10000;
};

// What one pass over a Target did.
struct DeliveryPass {
  // False when another session holds the Target (nothing was done).
  bool claimed = false;
  int delivered = 0;  // recorded Delivered, written now
  int found = 0;      // recorded Delivered, found in the Target from an earlier attempt
  int failed = 0;     // recorded Failed
  std::string error;  // the provider's error when failed > 0
};

// One pass over `target_id`: if no other session is delivering to it (or, given `claim_wait`,
// once the one that is has finished, waiting at most that long), delivers its Releases that
// are due (Pending, or Failed with NextDeliveryAt passed), oldest first. Errors are the
// database's (a failed delivery is recorded, not returned).
absl::StatusOr<DeliveryPass> DeliverTarget(store::ConnectionPool& db, const ReleaseEnv& env,
                                           const DeliveryOptions& opts,
                                           const std::string& target_id,
                                           absl::Duration claim_wait = absl::ZeroDuration());

// For a publish that has just committed `release_ids`: runs passes over their Targets until each
// of them has left Pending or `wait` has passed (another cubd, or this one's delivery worker
// woken by the commit, may be delivering to the Target; then this waits on the Target's claim
// until that delivery ends, and looks again at once), and returns the Releases as they stand, in
// the order given. A delivery failure is no error here: the Releases come back Failed, with the
// error. `read` says how much of each Release to return.
absl::StatusOr<std::vector<v1::Release>> DeliverNow(
    store::ConnectionPool& db, const ReleaseEnv& env, const DeliveryOptions& opts,
    const std::vector<std::string>& release_ids, absl::Duration wait,
    store::ReleaseRead read = store::ReleaseRead::kWhole);

// The Targets with Releases due now, and the seconds until the next one falls due (nullopt when
// none is waiting): what a delivery worker sweeps.
struct DueTargets {
  std::vector<std::string> target_ids;
  std::optional<double> next_due_in_seconds;
};
absl::StatusOr<DueTargets> FindDueTargets(store::ConnectionPool& db);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_DELIVERY_H_
