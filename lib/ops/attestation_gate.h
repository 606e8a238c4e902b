// Evaluating an AttestationPrerequisite over the revisions it reads.
//
// A requirement holds when every revision it reads has at least Count distinct eligible users
// whose current vote is an approval, and (unless IgnoreFail) no eligible user whose current
// vote is a rejection. A user's latest vote on a revision replaces their earlier ones; revoked
// and expired votes do not count, nor do votes older than MaxAge. Eligible: listed in
// FromUserIDs or a member (as their token said when voting) of a FromGroups group, or, with
// both empty, anyone who could vote there (the approver role); never one of the change's
// authors in that Space unless AllowAuthors. With DistinctGroups the Count must come from
// different groups of FromGroups (a user in several groups counts once).
#ifndef CUB_LIB_OPS_ATTESTATION_GATE_H_
#define CUB_LIB_OPS_ATTESTATION_GATE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cub/v1/common.pb.h"
#include "lib/ops/change_orders.h"
#include "lib/store/attestations.h"
#include "lib/store/transaction.h"
#include "lib/workflow/model.h"

namespace cub::ops {

// One vote as the evaluation judged it, for sealing.
struct JudgedVote {
  store::Vote vote;
  std::string unit;
  int64_t revision_num = 0;
  bool counted = false;
  std::string why;  // why it counted or not
};

struct RequirementOutcome {
  std::string space_id;
  bool held = true;
  // When it does not hold: "requires two-approvers: 2 Approval attestation(s) from eligible
  // attesters who did not write the change; deployment revision 3 has 1 of 2".
  std::string message;
  // The same, per revision read: "deployment revision 3 has 1 of 2".
  std::vector<std::string> shortfalls;
  std::vector<JudgedVote> votes;
  // Who could still make it hold: eligible users who have not approved (IDs).
  std::set<std::string> needs_from;
};

// Evaluates `req` for the change `rco` in each of `spaces`, over the revisions the change
// changed there at its release Tag. One outcome per Space, in order. A fixed number of queries.
absl::StatusOr<std::vector<RequirementOutcome>> EvaluateAttestation(
    store::Tx& tx, const ResolvedChangeOrder& rco, const workflow::AttestationPrerequisite& req,
    const std::vector<v1::Space>& spaces, absl::Time now);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_ATTESTATION_GATE_H_
