// Attestation rows (append-only: triggers refuse UPDATE and DELETE) and the reads that
// approval requirements are evaluated from.
#ifndef CUB_LIB_STORE_ATTESTATIONS_H_
#define CUB_LIB_STORE_ATTESTATIONS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/attestation.pb.h"
#include "lib/store/caller.h"
#include "lib/store/keyset.h"
#include "lib/store/transaction.h"

namespace cub::store {

struct NewAttestation {
  std::string space_id, space_slug, type, result, revokes_id;
  std::string user_id, username;
  std::vector<std::string> groups;
  std::string change_order_id, change_order, note;
  std::map<std::string, std::string> claims;
  int64_t expires_in_seconds = 0;  // 0: never expires
  std::vector<v1::AttestedRevision> revisions;
};

// Every function here returns a database error as a Status (lib/store/errors.h), never as an
// exception; after one the transaction is unusable until rolled back to a savepoint.

// Inserts `a` with its revisions and returns it as stored. FAILED_PRECONDITION when the row
// breaks a constraint: a user or revoked Attestation that does not exist, a result other than
// Pass, Fail or Revoke, or a Revoke without the Attestation it revokes (or another result with).
absl::StatusOr<v1::Attestation> InsertAttestation(Tx& tx, const NewAttestation& a);
// InsertAttestation for many at once, in a fixed number of statements whatever their number:
// returns them as stored, in the order given. Refused as a whole, for the same reasons.
absl::StatusOr<std::vector<v1::Attestation>> InsertAttestations(
    Tx& tx, const std::vector<NewAttestation>& all);
// By ID; nullopt when there is none (whatever Space it belongs to: the caller checks access).
absl::StatusOr<std::optional<v1::Attestation>> FindAttestation(Tx& tx, const std::string& id);
// Of one Space (which may since have been deleted), or of every Space the caller can see (and,
// for an admin, of deleted ones too), oldest first. `where` is over the Attestation schema;
// `page` continues after an Attestation ID.
absl::StatusOr<std::vector<v1::Attestation>> ListAttestations(Tx& tx, const Caller& caller,
                                                              const std::string& space_id,
                                                              std::string_view where,
                                                              const Keyset& page = {});

// A revision a requirement reads.
struct ReadRevision {
  std::string space_id;
  std::string unit_id;
  std::string unit_slug;
  int64_t revision_num = 0;
};
// The revisions of `space_ids` the change changed (start and publish marks differ), at the
// revision the publish Tag marks.
absl::StatusOr<std::vector<ReadRevision>> ChangedRevisions(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);

// A vote that covers a read revision: its Pass or Fail on a revision of the same Unit, at or
// before the one read, with the same content. Revoked and expired votes are included (flagged),
// so that they still replace a user's earlier votes: withdrawing a vote does not bring back the
// one it replaced.
struct Vote {
  std::string attestation_id;
  std::string user_id;
  std::string username;
  std::vector<std::string> groups;
  std::string result;  // Pass or Fail
  absl::Time at;
  int64_t voted_revision_num = 0;
  bool expired = false;
  bool revoked = false;
};
// Votes of `type` per read (keyed by unit ID and revision), oldest first, in one query.
absl::StatusOr<std::map<std::pair<std::string, int64_t>, std::vector<Vote>>> CurrentVotes(
    Tx& tx, const std::string& type, const std::vector<ReadRevision>& reads);

// Per Space, who wrote a revision of the change there: from each Unit's start mark through its
// publish mark.
absl::StatusOr<std::map<std::string, std::set<std::string>>> ChangeAuthors(
    Tx& tx, const std::string& start_tag_id, const std::string& publish_tag_id,
    const std::vector<std::string>& space_ids);

// Per Space, the users who may approve there: the approver or admin role, directly or through a
// group they are in. (Server admins are not listed: their identity cannot vote anyway.)
absl::StatusOr<std::map<std::string, std::set<std::string>>> Approvers(
    Tx& tx, const std::vector<std::string>& space_ids);
// The members of each group.
absl::StatusOr<std::map<std::string, std::set<std::string>>> GroupMembers(
    Tx& tx, const std::vector<std::string>& groups);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_ATTESTATIONS_H_
