// The checks of OCI Releases' evidence in their registries (release_verifications,
// migrations/0026): append-only, one row per check, the newest per Release is its
// Verification. And what an OCI Target's delivery reads besides the Release rows: the promotion
// records pushed as evidence, and the earlier Release a rollback deploys again.
#ifndef CUB_LIB_STORE_RELEASE_VERIFICATIONS_H_
#define CUB_LIB_STORE_RELEASE_VERIFICATIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewVerification {
  std::string release_id;
  std::string digest;
  std::string reason;  // Verified or one of the refusals (the table checks it)
  std::string message;
  std::string key_id;
};

// Writes them in one statement; nothing for an empty list.
absl::Status RecordVerifications(Tx& tx, const std::vector<NewVerification>& rows);

// The newest check of each of `release_ids` that has one, by Release ID.
absl::StatusOr<std::map<std::string, v1::ReleaseVerification>> LatestVerifications(
    Tx& tx, const std::vector<std::string>& release_ids);

// For each Release handed to an OCI Target, by its ID (in one query for the batch):
struct DeliveryEvidenceRow {
  // The signed promotion records of its ChangeOrder in its Space (DSSE JSON), oldest first.
  std::vector<std::string> promotion_records;
  // A rollback (revision selector "Release:N"): the Release N of the same Space, when it
  // exists (empty release_id otherwise).
  std::string rollback_release_id;
  int64_t rollback_release_num = 0;
  std::string rollback_change_order;
  bool rollback_sealed = false;  // it has sealed approvals
};
absl::StatusOr<std::map<std::string, DeliveryEvidenceRow>> DeliveryEvidence(
    Tx& tx, const std::vector<std::string>& release_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_RELEASE_VERIFICATIONS_H_
