// The outbox's bookkeeping (lib/ops/delivery.h): which Releases wait for their Target, who is
// delivering to a Target, and what each attempt did. A Release's delivery state changes only
// through the database functions cub_record_delivered and cub_record_delivery_failed, and only
// forward (Pending -> Failed -> Delivered, Delivered final: migrations/0021).
#ifndef CUB_LIB_STORE_DELIVERIES_H_
#define CUB_LIB_STORE_DELIVERIES_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/release.pb.h"
#include "lib/store/pool.h"
#include "lib/store/transaction.h"

namespace cub::store {

// The channel a recorded Release notifies at commit (InsertRelease sends it).
inline constexpr char kDeliveryChannel[] = "cub_delivery";

// NOTIFY cub_delivery, sent at commit: for writers that record Releases other than through
// InsertRelease.
absl::Status NotifyDelivery(Tx& tx);

// The right to deliver to one Target: an advisory lock held by a database session of its own
// (outside `pool`, so a claim never waits for the connections its holder needs to work). The
// lock goes when the claim is destroyed, or when the session ends (the process dies, the
// network fails), so a dead cubd never keeps a Target. Not thread-safe.
class TargetClaim {
 public:
  // Takes the Target's lock without waiting; nullopt when another session holds it. The
  // session comes from a small process-wide set of connections to `url`, opened when needed.
  static absl::StatusOr<std::unique_ptr<TargetClaim>> TryClaim(const std::string& url,
                                                               const std::string& target_id);
  // Takes the Target's lock, waiting up to `wait` for another session to let it go (TryClaim
  // when `wait` is not positive); nullopt when it is still held then. What a publish waiting
  // for its own Releases uses: it learns the moment the holder is done instead of polling.
  static absl::StatusOr<std::unique_ptr<TargetClaim>> Claim(const std::string& url,
                                                            const std::string& target_id,
                                                            absl::Duration wait);
  ~TargetClaim();
  // Whether the session holding the lock is still there: one round trip.
  bool Alive();

  struct Impl;

 private:
  explicit TargetClaim(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A Release waiting for its Target, with what the provider needs that the Release lacks.
struct UndeliveredRelease {
  v1::Release release;
  std::string author_email;  // the publisher's, from their identity; may be empty
};

// When `due_only` is false, or when at least one of them is due (Pending, or Failed with its
// next attempt's time passed): the Target's Releases not yet Delivered, oldest first (publish
// time, then number), at most `limit`; none otherwise. All of them, not only the due ones, so
// that a Space's Releases reach the Target in their order.
absl::StatusOr<std::vector<UndeliveredRelease>> UndeliveredReleases(Tx& tx,
                                                                    const std::string& target_id,
                                                                    int limit, bool due_only);

struct DeliveredRow {
  std::string release_id;
  std::string location;
  std::string commit;
  // OCI Targets: the artifact's manifest digest and its reference (release_artifacts); empty
  // for other providers.
  std::string artifact_digest;
  std::string artifact_ref;
};
// Records them Delivered (one statement, which also records the artifacts of those that have
// one); returns how many it recorded (those Delivered already, by another cubd, are left as
// they are and not counted).
absl::StatusOr<int> RecordDelivered(Tx& tx, const std::vector<DeliveredRow>& rows);

struct FailedRow {
  std::string release_id;
  int attempts = 0;
  std::string next_at;  // RFC 3339
};
// Records an attempt that failed with `error`: each not Delivered goes Failed, its attempts
// counted, due again after first_backoff * 2^(attempts before), at most max_backoff. Returns
// what was recorded.
absl::StatusOr<std::vector<FailedRow>> RecordDeliveryFailed(Tx& tx,
                                                            const std::vector<std::string>& ids,
                                                            const std::string& error,
                                                            absl::Duration first_backoff,
                                                            absl::Duration max_backoff);

// Where each of `ids` stands, in the order given (IDs naming no Release are left out).
struct DeliveryStateRow {
  std::string release_id;
  std::string target_id;
  std::string state;
};
absl::StatusOr<std::vector<DeliveryStateRow>> DeliveryStates(Tx& tx,
                                                             const std::vector<std::string>& ids);

// The Targets with Releases due now, and the seconds until the next Failed one falls due.
struct DueTargetRows {
  std::vector<std::string> target_ids;
  std::optional<double> next_due_in_seconds;
};
absl::StatusOr<DueTargetRows> DueTargets(Tx& tx);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_DELIVERIES_H_
